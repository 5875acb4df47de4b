package snapshots_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/acpsnap/acpsnap/agent/launch"
	"github.com/acpsnap/acpsnap/check"
	"github.com/acpsnap/acpsnap/scenario"
)

var (
	update  = flag.Bool("update", false, "accept stdout changes (write stdout.expected.jsonl)")
	refresh = flag.Bool("refresh", false, "accept stdout and session-log changes (authored scenarios too)")
	record  = flag.Bool("record", false, "re-record recording: live scenarios against DeepSeek (DEEPSEEK_API_KEY from the environment or ../.env)")
	force   = flag.Bool("force", false, "allow the writing flags when CI is set")
)

// TestMain lets the test binary serve as the bundled agent: the suite
// re-executes itself as `<test binary> agent`, so it depends on no binary
// built beforehand.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		if err := launch.Main(context.Background(), launch.Process{Getenv: os.Getenv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}); err != nil {
			fmt.Fprintln(os.Stderr, "acpsnap agent:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// suiteConfig is the check configuration the flags and environment select.
func suiteConfig(t *testing.T) check.Config {
	t.Helper()
	cfg := check.Config{Agent: agentCommand(t), Mode: check.Replay}
	switch {
	case *record:
		cfg.Mode, cfg.Secrets = check.Record, liveSecrets(t)
	case *refresh:
		cfg.Mode = check.Refresh
	case *update:
		cfg.Mode = check.Update
	}
	if cfg.Mode.Writes() && os.Getenv("CI") != "" && !*force {
		t.Fatalf("-%s writes fixtures and CI is set: refusing (add -force to write anyway)", cfg.Mode)
	}
	return cfg
}

// liveSecrets reads DEEPSEEK_* from the environment, falling back to ../.env
// (the module root's), exactly as `acpsnap record` does.
func liveSecrets(t *testing.T) map[string]string {
	t.Helper()
	secrets, err := launch.LiveSecrets(os.Getenv, "../.env")
	if err != nil {
		t.Fatalf("-record: %v", err)
	}
	return secrets
}

// TestSnapshots replays every scenario of the corpus, one parallel subtest
// per folder (so -run 'TestSnapshots/cancel' filters).
func TestSnapshots(t *testing.T) {
	cfg := suiteConfig(t)
	names, err := scenario.Names(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("the corpus is empty")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if cfg.Mode != check.Record {
				t.Parallel()
			}
			o := check.Check(context.Background(), name, cfg)
			switch o.Status {
			case check.Skipped:
				t.Skip(o.Reason)
			case check.Failed:
				msg := o.Reason
				if o.Diff != "" {
					msg += "\ndiff (-want +got):\n" + o.Diff
				}
				if o.Accept != "" {
					msg += "\naccept with: go test ./snapshots -run 'TestSnapshots/^" + regexp.QuoteMeta(name) + "$' -" + string(o.Accept)
				}
				t.Error(msg)
			}
			if len(o.Wrote) > 0 {
				t.Logf("wrote %v", o.Wrote)
			}
		})
	}
}

// TestGuards runs the corpus guards of docs/format.md, "Guards" and reports every violation.
func TestGuards(t *testing.T) {
	vs := scenario.Verify(".", scenario.VerifyConfig{})
	for _, v := range vs {
		t.Error(v)
	}
}
