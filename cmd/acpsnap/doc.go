// Command acpsnap records, replays and verifies snapshot tests of ACP agents.
//
//	acpsnap run     [flags]   replay the corpus and compare (writes nothing)
//	acpsnap update  [flags]   replay; accept stdout changes (stdout.expected.jsonl)
//	acpsnap refresh [flags]   replay; accept stdout and session-log changes (authored scenarios too)
//	acpsnap record  [flags]   run recording: live scenarios against the live model and write both
//	acpsnap verify  [-dir DIR]
//	acpsnap review  [-dir DIR] [-run REGEX]   walk the pending files: a accept, r reject, s skip, q quit
//	acpsnap accept  [-dir DIR] [-run REGEX]   accept every pending file
//	acpsnap reject  [-dir DIR] [-run REGEX]   remove every pending file
//	acpsnap show    [-dir DIR] [-width N] NAME   a scenario's transcript from its fixtures
//	acpsnap new     [-dir DIR] [-model FILE] [-agent CMD] [-force] [-offline] NAME
//	acpsnap capture [-dir DIR] [-no-workspace] [-expect-workspace] [-force] [-offline] NAME
//	                          be the agent to an ACP client; its session becomes scenario NAME
//	acpsnap init    [-dir DIR] -dialect D -- COMMAND…   start a corpus for an agent
//	acpsnap probe   [-dir DIR] [-n N] [-json] [-run RE | NAME…]   what makes the agent nondeterministic
//	acpsnap agent             the reference ACP agent on stdin/stdout
//	acpsnap serve-model [-dialect D] [-requests FILE] FILE   a scripted model on 127.0.0.1
//	acpsnap cassette verify|inspect|diff …                   cassettes (acpsnap cassette -h)
//	acpsnap mcp-cassette -mode M -file FILE [-- COMMAND…]    the MCP proxy the harness runs
//
// The flags of run, update, refresh and record:
//
//	-dir DIR  -run REGEX  -parallel N  -shard K/N  -agent 'CMD'  -json  -junit FILE
//	-html FILE  -timeout D  -grace D  -keep  -offline  -force  -pending  -v
//
// Exit codes, the same for every command: 0 every scenario passed (two
// cassettes are equivalent, one verifies), 1 a scenario failed (the
// cassettes differ, one does not verify; a report or show refused to
// carry a key), 2 usage or fixture error, 3
// internal error (an agent that cannot be started, an interrupted run). docs/format.md ("Command line") says what each command
// and flag does; docs/reference-agent.md what `acpsnap agent` reads. The
// code is cmd/acpsnap/internal/cli: this package only calls it.
package main
