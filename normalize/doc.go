// Package normalize turns the volatile values of an agent run — its working
// directory, home and private root, session, tool-call and message ids,
// JSON-RPC ids of the agent's own requests, times — into stable tokens, so that a live run and a
// committed fixture can be compared byte for byte (docs/format.md, "Normalization").
//
// The happy path, for one side:
//
//	c := normalize.NewContext(cwd, normalize.Aliases(cwd)...)
//	c.AddPath("home", home, normalize.Aliases(home)...) // the agent's HOME
//	c.AddPath("root", root, normalize.Aliases(root)...) // the run's root
//	primary, err := normalize.Session(rawPrimaryLog, c)
//	child1, err := normalize.Session(rawChildLog1, c) // children in order
//	stdout, err := normalize.Stdout(rawStdout, c)      // stdout last
//
// and for the committed side, a context derived from the fixture itself:
//
//	f, err := normalize.FixtureContext(committedPrimaryLog) // its first line
//	… the same three calls with f, in the same order.
//
// Both functions are pure transforms over bytes: they parse line by line,
// rewrite, and return compact JSON, one record per line with a trailing
// newline, object keys sorted bytewise (the last of duplicate keys wins),
// numbers exactly as read, strings escaped like encoding/json without HTML
// escaping. They never read the file system or the environment.
//
// # Token grammar
//
//	{{cwd}}        the working directory, in any spelling
//	{{home}}       the agent's home directory (AddPath "home")
//	{{root}}       the run's private root, which holds the cwd, the home
//	               and the sessions directory (AddPath "root")
//	{{time}}       an ISO-8601 timestamp inside text
//	{{KIND:N}}     a typed identity; KIND is session, toolCall, message,
//	               approval, id or agentRpc; N is decimal, 1 to 999999999,
//	               no leading zero
//
// Numbers are handed out per kind by first appearance, starting at 1. The
// same raw value always gets the same token, so references stay visible:
// the toolCall token in a tool/call event is the one in the stdout
// tool_call update and in the child log's spawnedBy. A string that already
// is a token keeps it and advances its kind's counter (so does a token
// inside text), so the next new value gets max+1: normalizing normalized
// output changes nothing.
//
// # Which key makes which kind
//
// The keys are those of the formats compared, ACP and the session log,
// defined with the session log (sessionlog.IdentityKeys, MessageEvents,
// ToolCallObjects, ToolCallArrays):
//
//	sessionId, parentSession, childSession     session
//	"id" of a session log's header (line 1)    session
//	toolCallId, callId, spawnedBy              toolCall
//	"id" of an object whose type is            toolCall
//	  "tool-call-delta" (a tool-call chunk)
//	"id" of the objects in a toolCalls or      toolCall
//	  tool_calls array
//	messageId                                  message
//	"id" of the data of a user/message or      message
//	  assistant/message event
//	approvalId                                 approval
//
// Under these keys a string is tokenised whatever its shape ("call_0_abc"
// is no UUID); the empty string and non-strings stay as they are. Anywhere
// else — any string value and any object key, at any depth — these rules
// apply in order:
//
//   - a string that is exactly a raw value the context has already
//     tokenised (up to 256 bytes) gets that token;
//   - every spelling of a path token (the cwd, and the home and root when
//     registered with AddPath) that ends at a path boundary becomes its
//     token, {{cwd}}, {{home}} or {{root}}, inside longer text and
//     file:// URLs too. All spellings of all path tokens compete, and at one
//     position the longest wins: with the cwd <root>/workspace and the home
//     <root>/home, "<root>/workspace/x" becomes "{{cwd}}/x",
//     "<root>/home/.cache" "{{home}}/.cache", "<root>/workspace2"
//     "{{root}}/workspace2" and "<root>/.." "{{root}}/..". A spelling given
//     for two tokens belongs to the first of cwd, home, root. A path ends where the string ends, at '/', or
//     at a byte that cannot continue a file name: letters, digits, '_', '-',
//     '{' and a '.' followed by a letter, digit or '{' continue it, so
//     "cwd2", "cwd-x", "cwd_x" and "cwd.bak" are other paths while "cwd.",
//     "cwd,", "cwd)", "cwd:" and "cwd " end one. ('{' counts as
//     continuation so that a token standing where a name went on does not
//     turn a non-boundary into a boundary on the second pass.) There is no
//     rule for what precedes a path: "-I/tmp/x" is scrubbed too. Only an
//     absolute path other than "/" is scrubbed; percent-encoded spellings
//     are not recognised;
//   - a UUID (8-4-4-4-12 hex digits, any case) not glued to letters or
//     digits becomes {{id:N}}, or the typed token its exact raw value
//     already has;
//   - an ISO-8601 timestamp not glued to letters or digits
//     (YYYY-MM-DDTHH:MM:SS, an optional .fraction, an optional Z or
//     ±HH[:MM] offset) becomes {{time}}. Dates alone are kept.
//
// A number under the key time, createdAt, durationMs, duration or elapsedMs
// becomes 0, at any depth and on both kinds of input (a string there gets
// the text rules, so a timestamp still becomes {{time}}).
//
// # Stdout and JSON-RPC ids
//
// Every stdout line must be one JSON value; anything else is an error that
// quotes the line (up to 200 bytes) and gives its number. A message with
// both "method" and "id" is a request the agent sent: its id (number or
// string) becomes {{agentRpc:N}}, numbered in its own space, never merged
// with the client's ids. The id of a response ("result" or "error") answers
// a request of the client, whose ids are deterministic, and is kept. The
// params.requestId of a $/cancel_request notification names an agent request
// and gets the same agentRpc token.
//
// # One context per side
//
// A Context carries the spellings of the path tokens and the token tables. All files of one
// side are normalized with one Context, in the order primary log, child logs
// (in order), stdout, so that a session id gets the same token in the logs
// and in stdout, and numbers follow first appearance, primary first.
//
// The live side and the committed side each get their own Context: the live
// one from what the run knows (NewContext with its cwd and Aliases, AddPath
// with its home and root), the committed one from the fixture's own header
// (FixtureContext), which knows only a cwd: {{home}} and {{root}} in a
// fixture are tokens already and stay as they are. Never
// normalize both with one shared context: scrubbing is exact-string, so a
// fixture recorded in another directory (a stale raw cwd, or a /private
// spelling the recording machine produced) would keep its old path under the
// live run's context and show up as a spurious diff, or worse, tokens handed
// out while normalizing one side would shift the numbers of the other. In
// committed fixtures the header's cwd is already {{cwd}}, which is fine: the
// fixture context then simply has nothing left to scrub.
//
// # Performance
//
// Lines are parsed by a small strict JSON reader into a reused arena (no
// reflection, no interface values); every rule is a byte scan that leaves a
// string untouched, without allocating, when it cannot match (no '/' for
// the path tokens, no '-' for UUIDs and timestamps, no '{' for tokens).
// Spellings that start with a shorter one (the cwd and the home below the
// root) are found by one search for the shorter, so registering the home
// and the root costs little.
// BenchmarkSession measures the throughput on a synthetic session log.
package normalize
