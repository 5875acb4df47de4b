// Package harness runs ONE scenario of the corpus against an ACP agent, as a
// real ACP client, and returns what happened: the agent's raw stdout lines,
// its session logs, its stderr, per-step timings and its replay report.
// Comparing against the committed fixtures is the caller's job (normalize,
// the snapshots suite, cmd/acpsnap); the harness never prints, never exits
// and never reads the environment to decide anything: Config says it all.
//
//	res, err := harness.Run(ctx, harness.Config{
//		Dir:   "snapshots/text-turn",
//		Agent: []string{"acpsnap", "agent"},
//	})
//	if err != nil { // which step failed and why, plus the agent's last stderr lines
//		...
//	}
//	// res.Stdout, res.Logs (primary first), res.Cwd, res.CwdAliases, res.Home
//	// and res.Root feed normalize.
//
// # Scenario files
//
// The scenario's files are read with package scenario (LoadManifest,
// LoadInput), strictly, with errors that carry the file, the line and the
// JSON path ("input.json:7: $.steps[3].op: unknown op \"promt\""). Run
// wraps errors in these files with ErrInvalidScenario; a step that fails
// at run time cites its line too ("input.json:12: step 4 (waitForTurnEnd):
// …").
//
// # An HTTP model
//
// With Config.Model set, the agent is not native: it writes no session
// log and replays nothing itself. The harness starts a model proxy
// (package llmreplay/proxy) on 127.0.0.1 for the run, fills the templates
// of the agent's command, Config.Env and the home seed ({{model.url}},
// {{model.key}}, {{home}}, {{cwd}}, {{root}}, {{corpus}}), gives the agent
// no ACPSNAP_* variable and no secret (the live key, in record, stays with
// the proxy), and after shutdown composes the session log from the
// exchanges (sessionlog.Compose, with Model.Pins) as Result.Logs[0]. In
// replay the proxy serves the exchanges of the scenario's committed
// session.jsonl; a request they do not hold fails the run and sets
// Result.RequestDrift. A promptAndCancel without waitForFile waits for the
// proxy to stall a hangAfter override. Config.TermShutdown sends SIGTERM
// as soon as stdin is closed, for agents that never exit on EOF; Settle
// waits for stdout to go quiet before shutdown.
//
// # Steps
//
// Steps run in order; each waits for its own completion within its time
// (timeoutMs, else Config.StepTimeout, default 10 s). Waits are
// condition-based: they look at once, then after pauses that grow from
// 0.25 ms to 5 ms, back to the shortest whenever the agent writes a stdout
// line (a pause is never shorter than twice the last look), parse the
// session log as JSON
// (complete lines only; a malformed complete line fails the step with its
// file and line), and time out with what they awaited, e.g.
// "step 4 (waitForTurnEnd): timed out after 10s waiting for turn/end with
// turn >= 2 in sessions/<id>/session.jsonl".
//
//	op                      fields                    does
//	initialize                                        initialize with the scenario's clientCapabilities
//	                                                  (protocol version 1, clientInfo acpsnap/1)
//	newSession              mcpServers?               session/new {cwd, mcpServers}; remembers the id
//	                                                  (each declared server replaced by an acpsnap
//	                                                  mcp-cassette proxy: see "MCP servers" below)
//	newSessionExpectError   params?                   session/new with params laid over the defaults
//	                                                  (top-level keys of acp.NewSessionRequest replace);
//	                                                  must get a JSON-RPC error
//	prompt                  text                      session/prompt with one text block; waits for the answer
//	promptContent           content                   session/prompt with exactly these ACP content blocks
//	promptExpectError       text                      the answer must be a JSON-RPC error
//	promptAndCancel         text, waitForFile?        prompt; wait for the cwd-relative marker file, else for
//	                                                  a durable turn/start beyond the log's last one;
//	                                                  session/cancel; wait for the answer (an answer
//	                                                  before the cancel point fails the step)
//	cancel                  waitForFile?              (wait for the file, then) session/cancel
//	waitForFile             path                      the cwd-relative file exists
//	waitForTurnStart        minimumTurn? (1)          the session's log holds turn/start with turn >= n
//	waitForTurnEnd          minimumTurn? (1)          the session's log holds turn/end with turn >= n
//	waitForSubagentTurnEnd  child? (1), minimumTurn?  the n-th child log (logs with a parentSession,
//	                                                  by createdAt, then id) holds turn/end with turn >= n
//
// Every step accepts timeoutMs. "{{cwd}}" in text, content and params is
// replaced by the live cwd. Prompts, cancels and waits address the session
// of the last newSession; the session's log is the one whose header id is
// that session id, wherever under the sessions directory it lies.
//
// # MCP servers
//
// The stdio MCP servers a newSession declares reach the agent under their
// names as `<Config.Acpsnap> mcp-cassette -mode <mode> -file <cassette>
// -report <sessions>/mcp.<name>.report.json -- <command> <args…>` with
// their env ({{cwd}} expanded in command, args and env values). The
// cassette is the scenario's mcp.<name>.cassette.jsonl in replay (the real
// server is never started) and a fresh file in the sessions folder in
// record, harvested into Result.Cassettes. A proxy that reports an error,
// or never reports, fails the run (docs/cassettes.md, "Any agent's MCP
// tools"). Without Config.Acpsnap (acpsnaptest sets it to the test
// binary itself), "acpsnap" is looked up on PATH; a
// scenario that declares servers fails at newSession when neither is there.
//
// # The client side
//
// The harness is an acp.Client (github.com/coder/acp-go-sdk). It answers
// session/request_permission with the next of permissionAnswers, selecting
// the offered option of that kind; an unoffered kind or no answer left fails
// the run with a message naming the request and the kinds offered.
// fs/read_text_file (line is 1-based, limit counts lines) and
// fs/write_text_file (creating parent folders) serve absolute paths inside
// the cwd or one of its aliases; paths outside it, relative paths and
// symbolic links that lead out are refused, dangling ones included (writing
// through one would create its target outside): every link is followed the
// way opening the path would (internal/fspath) for the message, and every
// open goes through an os.Root of the cwd, so a link swapped in between the
// check and the open cannot lead out either. Only regular files are read or
// written, and the open never blocks: a FIFO, a device or a directory gets
// a JSON-RPC error at once; a read takes at most 64 MiB. terminal/create runs the
// command in a pseudo-terminal (github.com/creack/pty, so output has "\r\n"
// line ends) in its own session and process group, in the cwd or a folder
// inside it (checked the same way), with the agent's environment minus
// every DEEPSEEK_* and ACPSNAP_* variable and every Config.Secrets name,
// plus the request's env: a command such as env would otherwise write the
// API key into recorded fixtures, and ACPSNAP_FIXTURE's machine path would
// make replay differ from record. outputByteLimit (default 1 MiB) keeps
// the last bytes in a ring (internal/ringbuf: a write never copies what is
// kept), cut at a character boundary, and sets truncated. terminal/output, wait_for_exit, kill (SIGKILL to the
// group) and release (kill, then forget) work on terminal ids "term-N".
// Every terminal is killed when the run ends. Methods the harness does not
// implement are answered -32601 by the SDK; errors of implemented methods
// reach the agent as -32603 with the reason in data.error.
//
// # Environment
//
// The agent gets an allowlist only, never the caller's environment:
//
//	PATH, LANG                  from Config.Environ (nil: os.Environ()), when set there
//	TZ=UTC
//	HOME                        a private, empty home
//	TMPDIR                      a private, empty folder for the agent's temporary files
//	the manifest's env
//	ACPSNAP_MODE                replay or record
//	ACPSNAP_SESSIONS_DIR        a private, empty folder; the agent writes <id>/session.jsonl
//	                            and replay-report.json there
//	ACPSNAP_PERMISSION          the manifest's permission (default auto)
//	ACPSNAP_FIXTURE             Dir/session.jsonl, when present
//	ACPSNAP_FIXTURE_CHILDREN    Dir/session.1.jsonl, session.2.jsonl, … (contiguous from 1,
//	                            present ones) joined by os.PathListSeparator, when any
//	ACPSNAP_OVERRIDE            Dir/replay.override.json, when present
//	Config.Secrets              in record mode only
//
// Terminals the agent asks for get this environment less DEEPSEEK_*,
// ACPSNAP_* and the Config.Secrets names (see The client side).
//
// # Temporary roots
//
// Each run makes <TempDir>/acpsnap-<nonce>/ (mode 0700) holding workspace/
// (the cwd, seeded by copying the scenario's workspace/ with its permission
// bits and symbolic links; its base name is always "workspace" so an agent
// that shows it stays deterministic), home/, sessions/ and tmp/ (TMPDIR).
// TempDir must exist; Run does not create it. The whole tree is removed
// before Run returns, whatever happened (read-only folders included).
// Result.Root, Result.Home and Result.Cwd name these folders so the caller
// can normalize them. Config.OnStart sees the three (Roots) after seeding,
// before the agent starts.
//
// # Process and shutdown
//
// The agent runs in the cwd in its own process group (Setpgid). Its stdout
// is read line by line with a 64 MiB buffer (internal/jsonl) by a tee that
// records every raw line (Result.Stdout, at most 256 MiB) before handing
// it to the SDK's connection: the SDK has no raw hooks and may run
// callbacks out of wire order. A line that is not JSON, not valid UTF-8
// (JSON decoding would silently turn it into U+FFFD), holds a duplicate key
// (decoding would keep the last value unseen) or is longer than 64 MiB
// ("line too long") fails the run at once, quoting it with its line
// number; stdout is protocol only. The SDK closes its connection when more
// than 1024 notifications wait in its queue; the harness, as the client,
// never lets that happen: the tee writes a barrier of its own after every
// 256 notifications and forwards no more than 768 past the last barrier
// the client has handled, so a burst of any size only slows the agent's
// writes. Should the connection still end under a live agent, the run
// fails with "the ACP connection closed while the agent was still
// writing" instead of waiting. Stderr is kept apart (its last MiB, in a
// ring), and its last 20 lines are attached to every error, each with its
// control characters shown as escapes (internal/visible), so an agent's
// bytes cannot move the cursor over the verdict.
//
// Shutdown is always bounded by three graces (Config.Grace, default 2 s;
// callers lower it for fast tests): close stdin; if the agent has not
// exited after a grace, SIGTERM its group (exec.Cmd.Cancel); if it has not
// exited after another grace, SIGKILL it (exec.Cmd.WaitDelay); then SIGKILL
// the whole group anyway, and give the kill and the readers of stdout and
// stderr one last grace together, after which the pipes are cut (a
// descendant that left the group may hold them). Terminals are killed
// next, then escaped processes (below), each within a grace. No wait of
// the harness is unbounded: every channel wait has a timer, the run's
// failure or the agent's exit beside it. An agent must finish and exit on stdin EOF (docs/agents.md): one that
// needs a signal fails the run after that bounded shutdown, e.g. "agent did
// not exit within 2s of stdin closing (sent SIGTERM)" or "(killed with
// SIGKILL after ignoring SIGTERM)". An agent that exits on its own but
// leaves processes in its group fails the run ("left processes running"),
// as does one that exits non-zero after stdin closed.
//
// On Linux the harness makes its process a child subreaper
// (PR_SET_CHILD_SUBREAPER, once per process, for the life of the process:
// a go test binary or acpsnap itself), so a descendant that left every
// process group the harness kills (a setsid daemon of the agent or of a
// terminal) is re-parented to it rather than to PID 1. At the end of a run
// every such child whose environment names the run's private root (HOME
// and TMPDIR point into it) or whose cwd lies in it is killed and reaped,
// and the run fails naming it ("processes of the run outlived it outside
// the process groups …; the harness killed them"). Zombies the process
// inherits in another session and that no run started are reaped too.
//
// # Harvest
//
// After shutdown the harness reads every sessions/*/session.jsonl, checks
// it with sessionlog (header, contiguous seq) and returns it raw:
// the primary session's log first (the first newSession), then the others
// by createdAt, then id. Only regular files are read, without following a
// final symbolic link and without an open that could block (a FIFO, or a
// link to /dev/zero, fails the run at once), each log at most 256 MiB, all
// at most 512 MiB, the report at most 16 MiB. A header without a final
// newline is a header; a log that starts with a byte order mark, or has a
// line over 64 MiB, is reported as such with its name and line. It reads
// sessions/replay-report.json (agentenv.ReadReport). In replay mode a report with any entry left or
// any error fails the run, listing each fixture's counts; a missing report
// fails it only if the agent wrote a session log.
//
// # Errors
//
// A failed run returns a non-nil Result (when the agent started) and one
// error: "harness: <scenario>: step N (<op>): <why>", followed by any
// harvest or report failures and the agent's last stderr lines. Causes:
// time out (what was awaited), the agent exiting before it answered (with
// its exit status), a JSON-RPC error where none was expected or none where
// one was, a non-JSON or non-UTF-8 stdout line, a permission the answers do
// not cover, an agent that does not exit on stdin EOF, a malformed log,
// unserved replay entries.
//
// Memory stays bounded whatever the agent does (the caps above), so Go's
// fatal out-of-memory exit, status 2 (the code acpsnap uses for fixture
// errors), cannot stand for a verdict about an agent.
//
// errors.Is tells the kinds apart: ErrInvalidScenario for the scenario's
// own files; ErrInfrastructure when the run could not be made at all or
// cleaned up (Config.TempDir missing, the private roots not created or not
// removed, the agent command not started), which says nothing about the
// scenario or the agent; anything else is the agent failing the scenario.
//
// # Against a hostile agent
//
// The harness is the trust boundary between the agent under test and the
// fixtures a team commits; what it guarantees, and what it does not, is
// this. Whatever the agent writes on its pipes or leaves in its folders,
// the harness ends the run in bounded time (every wait has a timer,
// shutdown takes at most three graces), in bounded memory (every buffer
// and every file it reads has a cap, files are read only when regular),
// with one error that names the step, the line and the cause; it answers
// every client request; it serves the file system only inside the cwd,
// opened through os.Root; it kills what the agent and its terminals leave
// running, setsid daemons included where Linux lets it be a subreaper;
// terminals get the agent's allowlisted environment less the secrets,
// never the harness's own; and its callers (check, acpsnap) scan every
// fixture byte and every printed byte for the values of the secrets they
// know and of key-looking variables in their own environment
// (internal/secretscan), refusing to write and naming the place, never the
// value, and show agent text with its control characters escaped. It is
// not a sandbox: the agent runs as the same user, with the same network,
// and can read or write anything that user can (its own fixtures, the
// harness's /proc/<pid>/environ, files outside the cwd through its own
// tools), kill the harness, use the CPU and the disk, or hide a daemon
// that clears its environment and leaves the cwd. Run agents you do not
// trust in a container or a VM, with no secrets in the environment.
package harness
