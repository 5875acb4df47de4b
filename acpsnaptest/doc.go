// Package acpsnaptest snapshot-tests an ACP agent from go test, in the
// agent's own repository, whatever language the agent is written in. Put a
// corpus of scenarios (docs/format.md) in a folder, with an acpsnap.yml
// that says which agent to run. {{corpus}} is the folder's absolute path.
// An agent over HTTP also names its dialect (docs/agents.md):
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
// Run runs the guards as the subtest TestACP/guards. It runs every scenario
// as a parallel subtest named after its folder (go test -run
// 'TestACP/cancel'). A differing scenario fails with a -want +got diff, and
// the exact command that accepts it. A scenario not recorded yet fails
// alone, with the command that records it; Params.SkipUnrecorded skips it
// instead. The writing modes are flags, registered under names that no
// other library uses. Tools that cannot pass test flags use the variable
// ACPSNAP_WRITE instead:
//
//	-acpsnap.update          ACPSNAP_WRITE=update          accept stdout changes (stdout.expected.jsonl)
//	-acpsnap.refresh         ACPSNAP_WRITE=refresh         accept stdout and session-log changes
//	-acpsnap.record          ACPSNAP_WRITE=record          re-record recording: live scenarios (serially)
//	-acpsnap.record-missing  ACPSNAP_WRITE=record-missing  record only the scenarios not recorded yet
//	-acpsnap.record-drifted  ACPSNAP_WRITE=record-drifted  replay, then re-record only those whose requests drifted
//	-acpsnap.pending         ACPSNAP_WRITE=pending         write <file>.new for acpsnap review, never the fixture
//	-acpsnap.force                                         write even in CI
//
// In CI, with a CI variable other than "", "0" and "false", the modes
// refuse unless forced, and pending never writes, as with the acpsnap
// command. Without Params.Dir, Run finds the corpus as the acpsnap command
// does without -dir. ACPSNAP_SHARD=K/N runs a stable shard of every
// corpus, and so do Bazel's shard variables. XML_OUTPUT_FILE gets a JUnit
// report and ACPSNAP_HTML an HTML one. The test binaries of one
// go test ./... share both reports. A corpus given as Bazel data, as
// runfile links, is read through Bazel's links only (docs/ci.md).
// Params.Scrub, Params.Ignore and Params.Redact add rules from Go.
//
// go test caches a passing result against the files the test opened. So
// Run opens the agent's executable, and every file its arguments name: an
// edit of agent.py reruns the test. Pass -count=1 after editing anything
// else the agent reads.
//
// A Go agent can be the test binary itself, like testscript.Main. Call
// from TestMain:
//
//	acpsnaptest.Main(m, map[string]func() int{"my-agent": myagent.Main})
//
// and the corpus names command: [my-agent]. The bundled corpus,
// snapshots/, is tested this way. The test binary itself proxies the MCP
// servers that a scenario declares (MCPProxy), with or without Main, so no
// acpsnap binary is needed.
package acpsnaptest
