// Package httplog is the composed session log of an agent that talks to
// its model over HTTP (docs/format.md, "Composed log"): Compose turns the
// exchanges the proxy relayed (package internal/proxy) into a session log
// of model/* events, each follow-up request stored as what it adds to an
// earlier one; Decompose reads such a log back into the exact exchanges,
// which the proxy then serves. Pins keeps each system prompt and tools
// value of a corpus once, in a file of pins/ named by its content, in
// place of its copies in every log.
//
//	pins := httplog.OpenPins("snapshots/pins").Overlay()
//	log, err := httplog.Compose(ctx, exchanges, httplog.ComposedHeader{Cwd: cwd, Dialect: "openai-chat"}, pins)
//	wrote, err := pins.Write() // the pin files the log names and pins/ lacks
//	...
//	h, xs, err := httplog.Decompose(log, "snapshots/x/session.jsonl", httplog.OpenPins("snapshots/pins"))
//
// The native log (header and events) is package sessionlog.
package httplog
