// Package harvest owns a run's private folders: it makes them (Make: the
// root, the scenario cwd seeded from workspace/, HOME, TMPDIR and the
// sessions folder, held by a lease so the next run removes the roots of a
// killed one), reads what the agent left there, each file within a cap and
// only if it is a regular file (the session logs, the replay report, the
// cassettes, the MCP proxies' reports), and removes or keeps the folders.
//
//	rts, err := harvest.Make(pool, tempDir, filepath.Join(dir, "workspace")) // pool nil: none
//	defer rts.Remove()
//	... // the agent runs in rts.Cwd, logs into rts.Sessions
//	logs, err := harvest.Logs(rts.Sessions, primaryID) // validated, primary first
//	rep, err := harvest.Report(rts.Sessions)
//	err = harvest.CheckReport(rep, len(logs))
//
// Every read has a cap (the constants beside each reader), so what an
// agent leaves behind cannot take the harness's memory; a log is refused with its file and line when
// its header is not a session header or a line is longer than the JSONL
// readers take.
//
// The files and their names are in docs/agents.md ("The native
// contract") and docs/format.md ("Running").
package harvest
