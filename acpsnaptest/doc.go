// Package acpsnaptest snapshot-tests an ACP agent from go test, in the
// agent's own repository, whatever language the agent is written in.
//
// Put a corpus of scenarios (docs/format.md) in a folder of a package,
// with an acpsnap.yml that says which agent to run:
//
//	# testdata/acp/acpsnap.yml
//	version: 1
//	agent:
//	  command: [python3, "{{corpus}}/agent.py"]
//
// (for an agent that talks to its model over HTTP, acpsnap.yml also says
// model: {dialect: openai-chat} and points the agent at {{model.url}}; see
// docs/agents.md) and check it from a test function:
//
//	func TestACP(t *testing.T) {
//		acpsnaptest.Run(t, acpsnaptest.Params{Dir: "testdata/acp"})
//	}
//
// Run runs the guards as the subtest TestACP/guards and every scenario as
// its own parallel subtest named after its folder, so the usual filters
// work (go test -run 'TestACP/cancel') and go test -json and gotestsum
// see one test per scenario, with its output. {{corpus}} in the command is
// the corpus folder's absolute path: the agent starts in a private working
// folder of each scenario. A corpus whose acpsnap.yml names no command needs
// Params.Agent.
//
// # Accepting a change
//
// A scenario whose output differs fails with a -want +got diff and the
// exact command that accepts the change, to paste at the module root:
//
//	accept with: go test ./pkg -run 'TestACP/^name$' -args -acpsnap.update
//	         or: ACPSNAP_WRITE=update go test ./pkg -run 'TestACP/^name$'
//
// The writing modes are flags, registered once under names no other
// library uses (a library's own -update keeps working), and, for tools
// that cannot pass test flags (or go test ./... over packages that do not
// all define them), the environment variable ACPSNAP_WRITE:
//
//	-acpsnap.update          ACPSNAP_WRITE=update          accept stdout changes (stdout.expected.jsonl)
//	-acpsnap.refresh         ACPSNAP_WRITE=refresh         accept stdout and session-log changes
//	-acpsnap.record          ACPSNAP_WRITE=record          re-record recording: live scenarios (serially)
//	-acpsnap.record-missing  ACPSNAP_WRITE=record-missing  record only the scenarios not recorded yet
//	-acpsnap.record-drifted  ACPSNAP_WRITE=record-drifted  replay, then re-record only those whose requests drifted
//	-acpsnap.pending         ACPSNAP_WRITE=pending         write <file>.new for acpsnap review, never the fixture
//	-acpsnap.force                                         write even in CI
//
// In CI (a CI variable other than "", "0" and "false") the writing modes
// refuse to run unless forced. record-missing and record-drifted log how
// many scenarios (and so live model calls) they will spend before the
// first one starts. After a pending run, acpsnap accept (or review, or
// reject) at the module root, without -dir, finds the pending files.
//
// ACPSNAP_SHARD=K/N, or Bazel's TEST_TOTAL_SHARDS and TEST_SHARD_INDEX,
// runs a stable shard of every corpus (the partition of acpsnap run
// -shard); XML_OUTPUT_FILE gets a JUnit report (docs/ci.md).
// Params.Scrub, Params.Ignore and Params.Redact add to acpsnap.yml's
// scrub and ignore rules from Go.
//
// A scenario scaffolded but not recorded yet (no stdout.expected.jsonl, no
// session.jsonl) fails alone with "not recorded yet: record it with: …"
// and the command that records it; it never stops the others.
// Params.SkipUnrecorded reports it as skipped instead.
//
// go test caches a passing result against the files the test opened. The
// agent's reads happen in another process, so Run opens the agent's
// executable and every file its arguments name: an edit of agent.py reruns
// the test. Other files the agent reads are not tracked; pass -count=1
// after editing them.
//
// # A Go agent: the test binary as the agent
//
// Main, called from TestMain, serves the test binary as named commands
// (like testscript.Main), so a Go agent needs no binary built beforehand:
//
//	func TestMain(m *testing.M) {
//		acpsnaptest.Main(m, map[string]func() int{"my-agent": myagent.Main})
//	}
//
// and the corpus (or Params.Agent) names the command: command: [my-agent].
// The bundled corpus of this repository (snapshots/) is tested this way.
//
// The MCP servers a scenario declares are proxied by the test binary
// itself (MCPProxy), with or without Main: no acpsnap binary is needed.
package acpsnaptest
