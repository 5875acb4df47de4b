package httplog

// Normalized reports whether key, a member of a composed model event's
// data, holds what a relay normalizes as it passes (a JSON request or
// response body, a follow-up's parts, the headers, an event's data), as
// opposed to what is normalized with the log: the call number, method,
// path, status, the SSE event name and id, and a payload kept as text or
// base64 (not JSON, or a body not in the canonical form).
func Normalized(key string) bool {
	switch key {
	case "body", "headers", "data", "append", "changed", "unset":
		return true
	}
	return false
}
