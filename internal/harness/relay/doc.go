// Package relay holds what a run puts between the agent and the servers it
// talks to, and collects what they recorded: the HTTP model proxy (package
// internal/proxy) with the live side's one token context, and the
// `acpsnap mcp-cassette` proxies of input.json's MCP servers.
//
//	src, err := relay.LoadSource(s, dir, pins, false) // the committed log's exchanges, the overrides
//	m, err := relay.StartModel(ctx, relay.ModelConfig{Dialect: "openai-chat", Roots: rts}, src)
//	defer m.Close()
//	... // the agent talks to m.URL() with m.Key(); m.Identify(sessionID) after session/new
//	c, errs := m.Compose(ctx, sessionID, agentInfo) // c.Log, c.Pins, c.Tokens, c.Drifts
//
//	mcp := relay.MCP{Acpsnap: bin, Dir: dir, Roots: rts}
//	servers, err := mcp.Servers(step.MCPServers, expand) // session/new's mcpServers
//	cassettes, errs := mcp.Collect(in.MCPServers())
//
// The Model normalizes every payload it relays, once, in the run's live
// context (normalize.Request and normalize.Payload, then the corpus's scrub
// rules): a request before it is matched (replay: the values it brings
// new get provisional tokens, renumbered as the call it matches numbered
// them, so racing calls number their own ids as recorded) or when the log
// is composed (record, in call order); it turns the tokens of what it
// serves back into live values. Package check normalizes the rest of the composed
// log and the run's stdout in the same context (Composed.Tokens) and leaves
// the payloads alone (docs/architecture.md, "One scenario, from folder to
// verdict").
//
// Nothing here reads the environment or keeps state outside a value: a
// Model is one run's, an MCP a small value the run holds.
package relay
