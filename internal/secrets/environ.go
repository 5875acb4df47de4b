package secrets

import "strings"

// Own is the prefix of acpsnap's own variables, which Scrub always removes.
const Own = "ACPSNAP_"

// Scrub returns environ ("NAME=value" entries) without acpsnap's own
// variables, without those whose name starts with one of prefixes
// (compared without regard to case) and without those named in names.
func Scrub(environ []string, prefixes []string, names ...string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !drop(name, prefixes, names) {
			out = append(out, kv)
		}
	}
	return out
}

func drop(name string, prefixes, names []string) bool {
	upper := strings.ToUpper(name)
	if strings.HasPrefix(upper, Own) {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(upper, strings.ToUpper(p)) {
			return true
		}
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
