// Package acpsnaptest snapshot-tests an ACP agent from go test, in the
// agent's own repository, whatever language the agent is written in. Put a
// corpus of scenarios (docs/format.md) in a folder, with an acpsnap.yml
// that says which agent to run ({{corpus}} is the folder's absolute path;
// an agent over HTTP also names its dialect, docs/agents.md):
//
//	# testdata/acp/acpsnap.yml
//	version: 1
//	agent:
//	  command: [python3, "{{corpus}}/agent.py"]
//
// and check it from a test function:
//
//	func TestACP(t *testing.T) {
//		acpsnaptest.Run(t, acpsnaptest.Params{Dir: "testdata/acp"})
//	}
//
// Run runs the guards as the subtest TestACP/guards and every scenario as
// a parallel subtest named after its folder (go test -run 'TestACP/cancel').
// A differing scenario fails with a -want +got diff and the exact command
// that accepts it; one not recorded yet fails alone with the command that
// records it (Params.SkipUnrecorded skips it instead). The writing modes
// are flags registered under names no other library uses, or, for tools
// that cannot pass test flags, the variable ACPSNAP_WRITE:
//
//	-acpsnap.update          ACPSNAP_WRITE=update          accept stdout changes (stdout.expected.jsonl)
//	-acpsnap.refresh         ACPSNAP_WRITE=refresh         accept stdout and session-log changes
//	-acpsnap.record          ACPSNAP_WRITE=record          re-record recording: live scenarios (serially)
//	-acpsnap.record-missing  ACPSNAP_WRITE=record-missing  record only the scenarios not recorded yet
//	-acpsnap.record-drifted  ACPSNAP_WRITE=record-drifted  replay, then re-record only those whose requests drifted
//	-acpsnap.pending         ACPSNAP_WRITE=pending         write <file>.new for acpsnap review, never the fixture
//	-acpsnap.force                                         write even in CI
//
// In CI (a CI variable other than "", "0" and "false") they refuse unless
// forced, and pending never writes, as with the acpsnap command. Without
// Params.Dir, Run finds the corpus as the acpsnap command does without
// -dir. ACPSNAP_SHARD=K/N (or Bazel's shard variables) runs a stable
// shard of every corpus, XML_OUTPUT_FILE gets a JUnit report and
// ACPSNAP_HTML an HTML one, both shared by the test binaries of one go
// test ./..., and a corpus given as Bazel data (runfile links) is read
// through Bazel's links only (docs/ci.md). Params.Scrub, Params.Ignore and Params.Redact add rules
// from Go. go test caches a passing result against the files the test
// opened, so Run opens the agent's executable and every file its arguments
// name: an edit of agent.py reruns the test (pass -count=1 after editing
// anything else the agent reads).
//
// A Go agent can be the test binary itself, like testscript.Main: from
// TestMain,
//
//	acpsnaptest.Main(m, map[string]func() int{"my-agent": myagent.Main})
//
// and the corpus names command: [my-agent] (the bundled corpus, snapshots/,
// is tested this way). The MCP servers a scenario declares are proxied by
// the test binary itself (MCPProxy), with or without Main: no acpsnap
// binary is needed.
package acpsnaptest
