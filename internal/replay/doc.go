// Package replay is acpsnap's model stand-in (docs/format.md, "Replay").
// It derives a replay script from recorded session logs (Derive), applies
// authored overrides (DecodeOverride, Override.Apply), and serves the
// script in one of two ways: in-process to a native agent (Player, which
// the public package llmreplay wraps), or over HTTP in a model dialect to
// live adapters and third-party agents (Server: the scripted server of
// `acpsnap new -model` and `acpsnap serve-model`).
//
//	srv, err := replay.NewServer(replay.ServerConfig{Dialect: "openai-chat", Primary: script})
//	defer srv.Close()
//	// point the agent at srv.URL(); then
//	rep := srv.Report() // what was served, what was left
//
// Decoding is strict everywhere (DecodeScript, DecodeOverride,
// DecodeModel, Derive), and errors carry the file, the line and the JSON
// path. A call the script cannot serve fails with a *model.ProviderError
// of code REPLAY that says "re-record", and is kept in the report, so the
// harness fails the scenario even when the agent swallows the error. A
// chunk may echo a value of the live request with {{fromRequest:<regex>}}
// (placeholders.go). Each dialect's events and bodies are its codec's,
// under internal/wire.
package replay
