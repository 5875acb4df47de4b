package snapshots_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// BenchmarkScenario replays each scenario serially, the private roots
// recycled as in acpsnap run: a profile of the harness alone. Each
// scenario against its floor is BenchmarkReplay (scripts/ratio).
func BenchmarkScenario(b *testing.B) {
	names, err := scenario.Names(".")
	if err != nil {
		b.Fatal(err)
	}
	// The private roots recycled from one scenario to the next, as a
	// serial acpsnap run (check.Run) does.
	pool := &harness.RootPool{}
	defer pool.Close()
	cfg := check.Config{Settings: harness.Settings{Agent: agentCommand, Acpsnap: acpsnaptest.MCPProxy(b), Pool: pool}}
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if o := check.Check(context.Background(), name, cfg); o.Status == check.Failed {
					b.Fatalf("%s: %s\n%s", name, o.Reason, o.Diff)
				}
			}
		})
	}
}

// BenchmarkCorpusParallel replays the whole corpus with one worker per CPU.
func BenchmarkCorpusParallel(b *testing.B) {
	rc := check.RunConfig{Root: ".", Parallel: runtime.NumCPU()}
	rc.Agent, rc.Acpsnap = agentCommand, acpsnaptest.MCPProxy(b)
	for b.Loop() {
		outs, err := check.Run(context.Background(), rc)
		if err != nil {
			b.Fatal(err)
		}
		if _, failed, _ := check.Count(outs); failed > 0 {
			b.Fatalf("%d scenarios failed", failed)
		}
	}
}
