// Package llmreplay is the model stand-in of acpsnap (docs/format.md, "Replay"). It derives a
// replay script from recorded session logs, applies authored overrides, and
// serves the script either in-process, to the reference agent's replay
// provider (Player), or over HTTP in a model dialect of the dialect table
// llmreplay/wire/dialect (OpenAI chat completions, OpenAI Responses,
// Anthropic Messages, Gemini generateContent), to live adapters and
// third-party agents (Server).
//
// The happy path of a replayed scenario:
//
//	p, err := llmreplay.Load(llmreplay.Config{
//		Primary:  "snapshots/x/session.jsonl",
//		Children: []string{"snapshots/x/session.1.jsonl"},
//		Override: "snapshots/x/replay.override.json", // "" when there is none
//	})
//	// for every model call of the agent:
//	err = p.Stream(ctx, llmreplay.StreamRequest{SessionID: id, SpawnedBy: callID, Cwd: cwd}, emit)
//	// at shutdown:
//	err = WriteReport(sessionsDir, p.Report())
//
// # Entries
//
// A Script is a JSON array of entries, one per model call, in call order:
//
//	{"kind":"chunks","chunks":[…]}
//	    Emit the chunks. The last chunk is a finish chunk and the only one;
//	    a finish with reason "error" has no code (that is a throw).
//	{"kind":"throw","chunks":[…],"message":"…","code":"…","accepted"?:bool}
//	    Emit the prefix chunks (no finish among them), then fail with the
//	    provider error {code, message}; code is not empty. accepted true:
//	    the provider had accepted the request and failed mid-stream; false
//	    (default): it refused the request. The Player treats both alike.
//	{"kind":"hang","readyFile"?:"…"}
//	    Emit the partial chunk {"type":"block-start","index":0,"blockType":"text"},
//	    create readyFile (a local relative path, resolved in the request's
//	    cwd; its directory is created too), then wait for cancellation.
//
// Chunks are those of docs/format.md, "Session log" (see model.Chunk). Decoding is strict everywhere
// (DecodeScript, DecodeOverride, DecodeModel, Derive): exact key sets per
// entry kind and chunk type, known chunk types, block types and finish
// reasons, no duplicate keys, no trailing data. Errors carry the file, the
// line of the offending value and its JSON path:
//
//	llmreplay: decode override: snapshots/x/replay.override.json:7: $[2].chunks[0].type: unknown chunk "text-delt"
//
// # Derivation
//
// Derive turns a session log into a script (docs/format.md, "Derivation"). It walks the
// request/header events ({turn, step, …}), the assistant/chunk events
// ({turn, step, chunk}) and, to end a call, step/end and turn/end; it
// ignores every other event. Chunks of the same (turn, step) form a group;
// a finish chunk closes the group, so an agent's retry within one step
// starts a new entry. A group closed by finish{reason:"error", code:X}
// becomes a throw entry: the chunks before the finish as prefix, the
// finish's error as message, X as code, accepted false (the log does not
// say). Any other group becomes a chunks entry, finish included; a
// model-side error (finish with reason "error" and no code) stays a chunks
// entry.
//
// A request/header opens a model call of its (turn, step) — the reference
// agent logs one per step, before the step's first attempt — and the
// step's first chunk joins it. A call whose request/header is followed by
// no chunk of its step before the step's step/end, the turn's turn/end, the
// next request/header or the end of the log (the call was cancelled before
// its first chunk) still takes its entry, with no chunks, so that the calls
// after it keep their positions. A request/header without turn and step,
// and logs without request/header events (other agents, older logs), leave
// derivation to the chunks alone; such a log cannot show a call that
// logged no chunk. A step whose only call failed with a retryable code
// (RATE_LIMIT, UNAVAILABLE) is one whose retry the agent never finished:
// cancelled in its retry pause, or before the retry's first chunk (the
// retry logs no request/header of its own). A replay makes that retry, so
// it takes an entry without chunks, reported as unterminated with
// AbandonedRetry set.
//
// A group that ends without finish — the next chunk belongs to another
// (turn, step), or a request/header follows, or the log ends — and a call
// that logged no chunk were cancelled or hung: the log cannot say how the
// call ended. Derive still returns the whole script, with the partial
// chunks as recorded at that entry (none for a call without chunks), and an
// *UnterminatedError that names the file, the line of the group's first
// chunk (of the request/header, for a call without chunks) and the entry
// index, and says the scenario needs a replay.override.json replacing that
// entry. Load accepts it only when the override replaces every such entry.
//
// # Overrides
//
// replay.override.json changes the primary session's derived script
// (docs/format.md, "Overrides"), in one of two forms:
//
//	[…entries…]                              replaces the whole script
//	{"patches":[{"at":i,"entry":{…}}, …]}    applied in order: i < length replaces
//	                                         entry i, i == length appends, anything
//	                                         else is an error naming the patch
//
// Child sessions cannot be overridden: a child fixture must derive cleanly.
//
// # Serving (Player)
//
// Load derives every fixture, applies the override to the primary one and
// fails loudly on a missing file. Stream then serves per session, by
// position: a session's n-th call gets its fixture's n-th entry. A session
// may have one call in flight; a second concurrent Stream on it is an error.
//
// A session binds to a fixture on its first Stream. SpawnedBy == "" binds
// the primary fixture (one primary session only). Otherwise SpawnedBy is
// the live id of the tool call that spawned the child; the Player issued
// that id itself when it expanded a {{toolCall:N}} token, so it binds the
// child fixture whose header "spawnedBy" is {{toolCall:N}} (a fixture that
// kept a raw id is matched verbatim). Concurrent siblings therefore bind
// deterministically, whatever order they arrive in. Each fixture serves one
// session.
//
// Token expansion, in every string of the served chunks (text, id, name,
// argumentsDelta, error) and in a throw's message:
//
//	{{cwd}}         the request's Cwd
//	{{session:N}}   the live id of the session bound to the fixture whose
//	                header id is {{session:N}}; unbound: left as is
//	{{toolCall:N}}  "call_" + Config.NewID(), fresh on first sight, then the
//	                same id for every later occurrence in any session
//
// Other tokens ({{message:N}}, {{id:N}}, …) are served as they are.
//
// Then each request placeholder {{fromRequest:<regex>}} (grammar: package
// internal/fromrequest, docs/format.md "Request placeholders") is replaced
// by the first capture group of its regex applied to StreamRequest.Request,
// the live request as text (RequestText of the agent's model.Request); a
// regex that does not match fails the call with a REPLAY error naming the
// fixture entry, the regex and an excerpt of the request. The text put in
// place of a placeholder is not expanded again.
//
// Failures the script cannot answer are *model.ProviderError{Code: "REPLAY"} whose
// message says "re-record": script exhausted, unrecorded session (a second
// primary, a spawner the replay never served, a fixture already serving
// another session), missing child fixture. Each one, and each overlapping
// call, is also kept in Report().Errors, so the harness fails the scenario
// even when the agent swallows the error.
//
// # Report
//
// Report returns, per fixture (primary first, then the children in Config
// order), the entries served and left. At shutdown the agent writes it with
// agentenv.WriteReport (atomically) as ReportFile in its sessions directory; the
// harness reads it with ReadReport and fails on any entry left or error:
//
//	{
//	  "fixtures": [
//	    {"fixture": "session.jsonl", "served": 3, "left": 0},
//	    {"fixture": "session.1.jsonl", "served": 1, "left": 1}
//	  ],
//	  "errors": ["REPLAY: llmreplay: script exhausted: …; re-record the scenario"]
//	}
//
// # Server and the HTTP dialects
//
// NewServer listens on 127.0.0.1:0 only and speaks ServerConfig.Dialect
// (Dialects; "" is openai-chat), answering POST on the dialect's endpoints
// (dialect.Dialect.Endpoints) under any prefix: openai-chat
// ".../chat/completions", openai-responses ".../responses",
// anthropic-messages ".../v1/messages", gemini-generate-content
// ".../v1beta/models/M:streamGenerateContent" and ":generateContent";
// a token count (anthropic-messages ".../v1/messages/count_tokens",
// gemini-generate-content ":countTokens") is answered with a
// deterministic count and takes no entry. Other paths 404, other methods
// 405. It records every
// request (Requests). A request without the header X-Acpsnap-Spawned-By
// (SpawnedByHeader) takes the next Primary entry; with it, the next entry
// of Children[value] — the tool-call id exactly as the scripts write it
// (the Server expands no tokens but request placeholders, matched against
// the request body as sent). Each route has its own positional
// cursor; Report names routes "primary" and by tool-call id.
//
// The events and bodies are those of the dialect's codec, which documents
// them: llmreplay/wire/openaichat (the dialect DeepSeek speaks, canonical
// in both directions: the reference agent's adapter parses with the same
// codec), llmreplay/wire/openairesponses, llmreplay/wire/anthropic,
// llmreplay/wire/gemini. A response's id is the dialect's prefix
// ("chatcmpl-", "resp_", "msg_", "gen-") and the request's ordinal, its
// model the request's "model", else the model its path names ("replay" if
// neither). A request whose "stream" is false gets the non-streamed JSON
// answer, as does a Gemini :generateContent; any other is streamed. Per entry:
//
//	chunks                   200 text/event-stream, the chunks, the dialect's end
//	throw, accepted false    the code's status (AUTH 401, RATE_LIMIT 429,
//	                         UNAVAILABLE 503, BAD_REQUEST 400, other 500) and the
//	                         dialect's error body carrying code and message; the
//	                         prefix is not sent
//	throw, accepted true     200, the prefix, then the dialect's mid-stream error
//	                         (a non-streamed request: the error status and body)
//	hang                     200, the dialect's opening events (which parse into no
//	                         chunk), flushed; then ReadyDir/readyFile is created
//	                         (when both are set) and the stream stays open until
//	                         the client goes away or Close
//	exhausted / no child     500 with the error body, code "REPLAY", a message that
//	                         says "re-record"; kept in Report().Errors
//
// A hang's opening event is the one DeepSeek sends first; the live adapter
// turns it into no chunk at all, while the Player's hang emits a partial
// block-start. The Server does not make up a non-empty delta to close that
// gap: the adapter maps any non-empty content, reasoning or tool call to a
// block-start plus a delta, so every candidate would put a text the Player
// never sends into the log and before the client. A scenario recorded
// against a Server hang therefore logs a call without chunks; Derive
// reports it as unterminated like the Player's partial call, and the
// scenario's override replaces it all the same.
//
// Close breaks open connections (a hung stream ends without [DONE]) and
// returns once every handler has returned.
//
// Model files (acpsnap new -model FILE) are decoded by DecodeModel: a bare
// array of entries (the primary script) or
// {"primary":[…],"children":{"<tool call id>":[…]}}.
//
// This package depends on the standard library, model, internal/jsonpos
// and the codecs under llmreplay/wire.
package llmreplay
