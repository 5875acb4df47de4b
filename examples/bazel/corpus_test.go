// Package bazel_test is the Bazel example of docs/ci.md: a Bazel workspace
// (WORKSPACE, BUILD, .bazelrc) whose tests run the corpus in corpus/ in
// four shards, once through acpsnap run and once through this package's
// go test binary. The same corpus runs under plain go test too, here.
package bazel_test

import (
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
	"github.com/acpsnap/acpsnap/agent/launch"
)

// TestMain serves the reference agent as the command acpsnap-agent: the
// test binary is the agent, so Bazel needs nothing else to run it.
func TestMain(m *testing.M) {
	acpsnaptest.Main(m, map[string]func() int{"acpsnap-agent": launch.Command})
}

// TestCorpus checks corpus/, as Bazel runs it: under Bazel, its shard of
// the scenarios, with the report in XML_OUTPUT_FILE.
func TestCorpus(t *testing.T) {
	acpsnaptest.Run(t, acpsnaptest.Params{
		Dir:         "corpus",
		Agent:       []string{"acpsnap-agent"},
		ScriptedEnv: launch.ScriptedEnv,
	})
}
