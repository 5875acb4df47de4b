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
//	acpsnap init    [-dir DIR] -dialect D -- COMMAND…   start a corpus for an agent
//	acpsnap probe   [-dir DIR] [-n N] [-json] NAME      what makes the agent nondeterministic
//	acpsnap agent             the reference ACP agent on stdin/stdout
//
// Flags of run, update, refresh and record:
//
//	-dir DIR        the corpus folder (default snapshots)
//	-run REGEX      only scenarios whose folder name matches
//	-parallel N     scenarios at once (default: the number of CPUs; record: 1)
//	-shard K/N      the K-th of N stable shards (by a hash of each name)
//	-agent 'CMD'    the agent command line, split like a POSIX shell
//	                (default: this binary's "agent" subcommand)
//	-json           one JSON object per scenario, then {"passed","failed","skipped"};
//	                the closing line then goes to stderr
//	-junit FILE     also write a JUnit XML report
//	-html FILE      also write a self-contained HTML report: transcripts, model
//	                calls, diffs (docs/format.md, "Transcripts")
//	-timeout D      the default wait of a step (default 10s)
//	-force          write even when CI is set (the writing modes refuse otherwise)
//	-pending        write <file>.new beside each differing fixture, never the
//	                fixture itself, for review (refused when CI is set)
//	-v              list the slowest scenarios at the end
//
// Every run first checks the corpus guards (as `verify` does) and refuses a
// corpus that fails them, a -run that selects no scenario, and a -junit
// file in a folder that does not exist (exit 2) before any agent starts.
// SIGINT, SIGTERM and SIGHUP stop a run cleanly: running agents are shut
// down, temporary roots removed, scenarios not started count as skipped,
// and the exit code is 3. It prints one line per scenario with its time
// ("ok", "FAIL", "skip", or "wrote" in the writing modes); a failure shows
// a unified diff labelled -want +got and the exact command that accepts
// it; the run ends with "N passed, N failed" (", N skipped"). On a terminal
// it shows one live count line instead and prints only the scenarios that
// need attention; diffs of JSON lines name the changed key paths
// (docs/format.md, "Command line" and "Review").
//
// record takes DEEPSEEK_API_KEY, DEEPSEEK_BASE_URL and DEEPSEEK_MODEL from
// the environment or ./.env and passes them to the agent in that mode only;
// it talks to whatever DEEPSEEK_BASE_URL points at. new -model FILE records
// a scenario once through the same DeepSeek adapter against llmreplay's
// scripted server on 127.0.0.1 (FILE: a JSON array of replay entries, or
// {"primary":[…],"children":{"<tool-call id>":[…]}}), so scenarios can be
// authored without a key; the scenario becomes recording: authored and keeps
// FILE beside it as model.json, which refresh re-renders it from. Without
// -model, new only scaffolds (recording: live). new -model writes fixtures,
// so with CI set it refuses unless given -force; -force also re-authors a
// scenario already recorded. With -offline it records in a loopback-only
// network namespace, like run -offline (the scripted model needs no
// network).
//
// The agent subcommand reads ACPSNAP_MODE: replay (the model is llmreplay,
// from ACPSNAP_FIXTURE, ACPSNAP_FIXTURE_CHILDREN and ACPSNAP_OVERRIDE; it
// writes replay-report.json into ACPSNAP_SESSIONS_DIR at exit and never
// reads .env), record (DeepSeek from DEEPSEEK_*), or unset (a standalone
// agent for an editor such as Zed: DeepSeek configured from the environment
// or ./.env, logs under ~/.acpsnap/sessions unless ACPSNAP_SESSIONS_DIR).
//
// Exit codes: 0 every scenario passed, 1 a scenario failed, 2 usage or
// fixture error, 3 internal error (an agent that cannot be started, a
// temporary root that cannot be made, an interrupted run).
package main
