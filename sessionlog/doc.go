// Package sessionlog reads and writes the session log: what a native
// agent writes of each session it runs, and what acpsnap compares and
// replays. A log is a header line, then one event per line with a
// contiguous seq from 0 (docs/format.md, "Session log").
//
// A native agent creates one log per session, in the folder its contract
// names (agentenv.Agent's SessionsDir), and appends events as they
// happen. Each Append is one line in one Write, so the harness, which
// polls the log for turn boundaries, never sees half an event:
//
//	w, err := sessionlog.Create(filepath.Join(contract.SessionsDir, sid, sessionlog.FileName),
//		sessionlog.Header{ID: sid, CreatedAt: now.UnixMilli(), Cwd: cwd}, nil)
//	err = w.Append("user/message", map[string]any{"turn": 1, "id": msgID, "content": blocks}) // the ACP prompt
//	err = w.Append("request/header", map[string]any{"turn": 1, "step": 1, "model": name, "system": system, "tools": tools})
//	err = w.Append("assistant/chunk", map[string]any{"turn": 1, "step": 1, "chunk": chunk}) // every model.Chunk
//	err = w.Close()
//
// A replay serves back the chunks of those assistant/chunk events, call
// by call, so log every chunk of every model call, and a request/header
// before each call. A child session (a subagent) has a log of its own,
// whose header names its parent session and the tool call that spawned
// it. Reopen continues a log the agent loads again after a restart.
//
// Read and ReadFile read a log back strictly: a malformed line is an error
// that names the file and the line.
//
//	l, err := sessionlog.ReadFile("snapshots/text-turn/session.jsonl")
//	for _, ev := range l.Events { … ev.Type, ev.Data … }
//
// The events, their data and the rules of seq and time are specified in
// docs/format.md ("Session log"); the reference agent's agent/ writes
// every kind.
package sessionlog
