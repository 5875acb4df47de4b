// Package agent is acpsnap's reference ACP agent: a small but real coding
// agent that the bundled snapshot corpus tests, and an example of how to
// make an agent snapshot-testable.
//
// # Running it
//
// Serve speaks ACP (JSON-RPC 2.0, one object per line) over a reader and a
// writer until the reader hits EOF:
//
//	err := agent.Serve(ctx, agent.Config{
//		Provider:    provider, // live DeepSeek (agent/deepseek) or agent.Replay(player)
//		SessionsDir: dir,
//	}, os.Stdin, os.Stdout)
//
// `acpsnap agent` does exactly this: internal/cli reads the ACPSNAP_*
// environment (mode, sessions dir, fixtures, permission mode) and builds
// the Config; this package never reads the environment, prints or exits.
// Record and replay boot the same agent: the model.Provider is the only seam.
// Everything on the writer is protocol; diagnostics go to Config.Stderr.
//
// On EOF Serve cancels the turns still running (they end
// aborted{by:disposed}), waits for them, closes every session log and
// returns nil. Writing replay-report.json is the caller's job
// (agentenv.WriteReport after Serve returns).
//
// # Config
//
//	model.Provider     required; the model (see model.Provider). It must be safe for
//	             concurrent use: sibling subagents stream at the same time.
//	SessionsDir  required; logs go to SessionsDir/<session-id>/session.jsonl
//	Permission   "auto" | "ask"; "": "auto"
//	Model        sent to the provider, logged in request/header; "": "deepseek-chat"
//	MaxSteps     model calls per turn; 0: 25
//	BashTimeout  default bash timeout; 0: 2 minutes
//	Now, NewID   clock and id source; nil: time.Now, random UUIDv4
//	Stderr       diagnostics; nil: io.Discard
//	Tools        the tool cassette the tools run through (below); nil: none
//
// # Protocol
//
// ACP v1 with github.com/coder/acp-go-sdk (it owns the JSON-RPC framing
// and types). The MCP client is github.com/modelcontextprotocol/go-sdk,
// the official SDK: its stdio transport, initialize handshake, paginated
// tools/list and tools/call are what a hand-written client would redo.
//
//   - initialize: protocol version 1, loadSession false, text prompts only.
//     The client's fs.readTextFile, fs.writeTextFile and terminal
//     capabilities are remembered and decide how tools run.
//   - session/new: cwd must be an absolute path to an existing directory;
//     a relative or missing cwd, additionalDirectories, and an mcpServers
//     entry that is not stdio, whose name is not 1 to 64 of A-Z a-z 0-9 _ -
//     (or holds "__") or is given twice are rejected with -32602 and a
//     message in data.error. Each stdio MCP server is started (below); one
//     that cannot be started or listed fails session/new with -32603. The
//     response advertises two session modes, "auto" and "ask" (the
//     permission mode), current = Config.Permission.
//   - session/set_mode: switches the permission mode ("auto" | "ask").
//   - session/prompt: runs one turn (below). Answers stopReason end_turn,
//     max_tokens, max_turn_requests (MaxSteps spent) or cancelled; a turn
//     that fails answers a JSON-RPC internal error (-32603) whose data is
//     {"message": …, "code": …} (code omitted for a model-side error).
//   - session/cancel: aborts the running turn: its model stream, its
//     running tool, a pending permission request and running subagents.
//   - Streams session/update: agent_thought_chunk (reasoning deltas),
//     agent_message_chunk (text deltas), tool_call, tool_call_update, plan.
//   - session/load: reopens a primary session of the sessions folder from
//     its log, also after a restart of the agent (the capability is not
//     advertised: initialize still says loadSession false). The
//     conversation is replayed as session/update (user_message_chunk,
//     agent_thought_chunk, agent_message_chunk, tool_call and its final
//     tool_call_update), the model history is rebuilt, and the next turns
//     append to the same log; a replaying provider (Resumer) continues
//     after the calls the log holds. The session starts in
//     Config.Permission. An unknown session, a subagent's, one already
//     open or one of another cwd is refused with -32602.
//   - session/resume: session/load without the replay.
//   - session/list: the primary sessions of the sessions folder (of one
//     cwd when asked), oldest first, each with its first prompt (at most
//     80 characters) as the title and its last event's time as updatedAt.
//   - session/close: cancels the session's turn, stops its MCP servers and
//     closes its log; it can be loaded again.
//   - session/set_config_option: one option, "permission" (a select of
//     "auto" and "ask", the same setting as the mode); the answer lists it
//     with its current value.
//   - session/set_model (unstable): the model name the session's next
//     calls send and log.
//   - session/fork: method not found (a scenario has one primary log).
//
// # The turn loop
//
// A turn logs turn/start and user/message, then runs steps. A step logs
// step/start and request/header, streams one model call — each chunk is
// logged as assistant/chunk and forwarded to the client as it arrives —
// logs assistant/message (tool-call deltas assembled into calls by id, in
// order of first appearance: a call whose deltas interleave with another's
// spans several blocks), runs the message's tool calls (tool/call,
// tool/result) and logs step/end. The turn ends (turn/end) when a message
// has no tool calls (completed), the model is cut off (max-tokens; its
// tool calls are dropped, their arguments may be truncated), MaxSteps
// model calls are spent (max-steps), the turn is cancelled (aborted) or a
// model call fails (error).
//
// A RATE_LIMIT or UNAVAILABLE provider error is retried once within the
// same step: the failed attempt's chunks stay in the log, closed by a
// synthesized {"type":"finish","reason":"error","error":msg,"code":CODE}
// chunk, and the retry's chunks follow in the same step, after
// Config.RetryDelay (0 in replay; a cancel during the pause aborts the
// turn without a second call). Any other provider
// error, a second failure, a stream that ends without a finish chunk
// (code STREAM) or a plain Go error from the provider (code INTERNAL) ends
// the turn with error{message, code}. A model-side error finish (a finish
// chunk with reason "error" and no code) is logged as the model sent it
// and ends the turn with error{message}.
//
// # Tools
//
// The model sees JSON schemas for these tools (in this order):
//
//	read_file  {path, offset?, limit?}   text of the file; offset is the 1-based first line, limit a line count
//	write_file {path, content}           creates parent directories; "wrote N bytes to P"
//	edit_file  {path, old_string, new_string, replace_all?}
//	           old_string must occur exactly once unless replace_all
//	list_dir   {path?}                   names sorted, directories with a trailing "/"
//	bash       {command, timeoutMs?}     bash -c in the cwd; combined stdout+stderr;
//	           a non-zero exit, a signal or the timeout is an error result
//	fetch      {url}                     HTTP GET of an http(s) URL within 30 s, at most 1 MiB of body;
//	           "HTTP 200 (text/plain)", a blank line, the text; a status >= 400 is an error result
//	todo_write {todos:[{content, status: pending|in_progress|completed}]}
//	           replaces the client's plan (a plan update, medium priority)
//	task       {description, prompt}     runs a subagent; its final text is the result
//	mcp__<server>__<tool>                 the tools of session/new's MCP servers, after the
//	           built-in ones in server then tool order; the result is the text contents
//	           one per line, isError an error result; they ask permission in "ask" mode
//
// MCP servers are started with the tool environment below plus their own
// env, their stderr on Config.Stderr, and connected to as an MCP client
// (github.com/modelcontextprotocol/go-sdk); they are closed with their
// session when Serve returns.
//
// Paths resolve against the session cwd; a path that leaves the cwd (by
// ".." or an absolute path elsewhere, or through a symbolic link anywhere
// on the path, dangling links included: writing through one would create
// its target) is an error result (internal/fspath). Results are capped at
// 256 KiB, cut on a UTF-8 character boundary and followed by
// "\n[truncated: N more bytes]" (N counts the whole rest, however long a
// command's output was). File tools use the client's fs/read_text_file and
// fs/write_text_file when the client advertised them (edit_file reads and
// writes through the client), else the local file system; list_dir is
// always local. bash runs in a client terminal (terminal/create,
// wait_for_exit bounded by the timeout, kill if it did not exit, output,
// release) when the client advertised terminal, else locally: bash -c in
// the cwd in its own process group, output to a temporary file (unlinked
// as soon as it is created, so the command never sees it in $TMPDIR and
// an agent killed mid-call leaves nothing behind), the group killed
// (SIGKILL) on timeout, on cancel and after the shell exits, so no
// background job outlives the call. A local command gets the agent's
// environment without every DEEPSEEK_* and ACPSNAP_* variable (the API key,
// the base URL, acpsnap's modes and machine paths), so a model that runs
// `env` cannot write the key or a path of the recording machine into a
// fixture; PWD is the cwd. The default timeout is
// Config.BashTimeout; timeoutMs may ask for up to 10 minutes.
//
// A failing tool (bad arguments, missing file, unknown tool, denied
// permission) is not a turn failure: it becomes an error tool result the
// model sees (tool/result error:true, tool_call_update status failed).
//
// # The tool cassette
//
// With Config.Tools (a ToolCassette: a cassette/tool Recorder or Player
// and its selection; docs/cassettes.md, "The reference agent's tools"),
// every tool body runs through it: a selected call is recorded in record
// mode and served without running in replay. The permission request and
// the in_progress update stay outside; the body returns a JSON value
// (bash: how the command ended; fetch: the response; an MCP tool: its
// CallToolResult; the others: their result text) that today's code
// renders, so a replayed result is rendered exactly as a live one. A tool
// that would talk to the client from inside its body — bash in a client
// terminal, the file tools through fs/* — runs its local implementation
// when the cassette selects it, so the recorded body is the whole tool and
// a replay sends the client nothing for it. Calls of the primary session
// are at path "root", a child's at "root/task-N" (N counts the parent's
// task children in creation order). A call whose arguments are not JSON
// fails decoding before it reaches the cassette. The caller closes the
// cassette after Serve returns (agent/launch does, and exits 1 on its
// error). A mismatch is an error result the model sees.
//
// # Tool order, and why
//
// Stdout is snapshot-compared byte for byte, so everything the client sees
// must come out in an order that does not depend on scheduling. For the
// tool calls of one assistant message the agent therefore:
//
//  1. announces every call, in call order (tool/call, tool_call pending);
//  2. runs the non-task calls one at a time, in call order (permission,
//     tool_call_update in_progress, the tool, tool/result and
//     tool_call_update completed or failed);
//  3. runs the task calls as one batch: creates every child session first,
//     in call order (logging subagent/descriptor for each, so children's
//     createdAt order is call order and harvesting them by createdAt is
//     deterministic), marks them in_progress in call order, runs the
//     children concurrently (siblings overlap in time, as a user would
//     want), waits for all of them, then records their results in call
//     order.
//
// Subagents send nothing to the client, so their concurrency is invisible
// on the wire; sequential non-task tools keep side effects (files, bash)
// and permission requests in a reproducible order.
//
// # Subagents
//
// A task call creates a child session with its own log (header
// parentSession, origin "subagent", spawnedBy = the task's tool-call id,
// delegationDepth = parent + 1) and runs one turn in it with the same
// Provider (model.Request.SpawnedBy set to the tool-call id, which is how a
// replaying provider finds the child's script). Children have a read-only
// toolset — read_file and list_dir, always local, no permission asks, no
// task (so delegation is one level deep) — and never send session/update.
// The child's final assistant text is the task's result; a failed child
// turn is an error result ("subagent failed: …").
//
// With Config.Subagents (a subagent cassette, package cassette/subagent)
// a task call goes through that boundary instead (boundary.go): a
// Recorder runs the child as above but without a log of its own and
// records its outcome; a Player returns the recorded outcome and never
// starts the child, its model or its log. The tool result is the same
// text either way; a miss is an error result carrying the cassette's
// metadata-only diagnostic. subagent/descriptor then says cassette: true
// instead of naming a child session. docs/cassettes.md ("In a scenario")
// gives the identity the agent hands the cassette and its ordering rules.
//
// # Permissions
//
// In "auto" mode tools never ask. In "ask" mode write_file, edit_file and
// bash ask through session/request_permission, offering four options whose
// optionId is their kind: allow_once, allow_always, reject_once,
// reject_always. allow_always and reject_always are remembered for the
// session, per tool name, and later calls of that tool do not ask. A
// rejection (or a "cancelled" outcome) is the error result "permission
// denied by user"; a failed request is "permission request failed: …".
// The mode comes from Config.Permission (ACPSNAP_PERMISSION, set by the
// caller) and can be changed per session with session/set_mode.
//
// # Cancellation
//
// session/cancel (or $/cancel_request of the prompt) cancels the turn's
// context: the model stream stops (chunks received so far stay logged),
// the running tool is cancelled (a local bash process group is killed, a
// client terminal is killed and released), a pending permission request is
// withdrawn. Tool calls of the message left without a result get the error
// result "cancelled"; the step and turn close (step/end, turn/end
// aborted{by:user}) and the prompt answers stopReason cancelled. When the
// input reaches EOF, running turns end the same way with by:"disposed".
//
// # The session log
//
// Each session writes SessionsDir/<id>/session.jsonl (docs/format.md, "Session log") through
// internal/sessionlog: a header line
//
//	{"type":"session","version":1,"id":…,"createdAt":ms,"cwd":…,"delegationDepth":0}
//
// (plus parentSession, origin "subagent" and spawnedBy for children), then
// events {"type":…,"seq":N,"time":ms,"data":{…}} with seq contiguous from
// 0. createdAt is strictly increasing across the sessions of one Serve
// (bumped by 1 ms on a tie). Events are written as they happen, each line in
// one write, so a reader may poll the file for turn boundaries.
//
//	turn/start          {turn}                                  turns count from 1 per session
//	user/message        {turn, id, content}                     content: the prompt's ACP content blocks
//	step/start          {turn, step}                            steps count from 1 per turn
//	request/header      {turn, step, model, system, tools}      tools: [{name, description, parameters}]
//	assistant/chunk     {turn, step, chunk}                     one stream chunk (model.Chunk JSON)
//	assistant/message   {turn, step, id, text, reasoning?, toolCalls?:[{id, name, arguments}]}
//	tool/call           {turn, step, callId, name, arguments}   arguments: the raw JSON text the model sent
//	approval/asked      {turn, callId, approvalId, options}     options: the offered kinds, in order
//	approval/decided    {turn, callId, approvalId, outcome}     outcome: the chosen kind, "cancelled" or "error"
//	subagent/descriptor {turn, callId, childSession|cassette}   a task call's child session id, or cassette: true
//	tool/result         {turn, step, callId, content, error?}   error: true for an error result
//	step/end            {turn, step}
//	turn/end            {turn, reason}
//
// turn/end reason is {kind} with kind one of completed, max-tokens,
// max-steps (MaxSteps model calls spent; an extension of docs/format.md, "Session log"), aborted
// (with by: "user" | "disposed") and error (with message and, for provider
// errors, code: AUTH, RATE_LIMIT, UNAVAILABLE, BAD_REQUEST, STREAM, REPLAY,
// INTERNAL).
//
// Within a step the order is: step/start, request/header, assistant/chunk…,
// assistant/message, tool/call… (every call), then per non-task call
// [approval/asked, approval/decided,] tool/result, then for the task batch
// subagent/descriptor… and tool/result…, then step/end.
//
// # Determinism
//
// Given the same model.Provider output, client answers, Now and NewID, the agent
// writes the same bytes to stdout and the same logs: ids come only from
// NewID (session, message and approval ids) and the model (tool-call ids;
// an empty one becomes "call_"+NewID()), notifications of one session are
// sent from one goroutine, tools run in the order above, and children
// never write to the client.
package agent
