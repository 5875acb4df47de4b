// Package httplog is the composed session log of an agent that talks to
// its model over HTTP (docs/format.md, "Composed log"): Compose turns the
// exchanges the proxy relayed (package llmreplay/proxy) into a session log
// of model/* events, each follow-up request stored as what it adds to an
// earlier one; Decompose reads such a log back into the exact exchanges,
// which the proxy then serves. Pins keeps a corpus's system prompt and
// tool schemas once, under pins/, in place of their copies in every log.
//
//	log, err := httplog.Compose(ctx, exchanges, httplog.ComposedHeader{Cwd: cwd, Dialect: "openai-chat"}, pins)
//	...
//	h, xs, err := httplog.Decompose(log, "snapshots/x/session.jsonl", pins)
//
// The native log (header and events) is package sessionlog.
package httplog
