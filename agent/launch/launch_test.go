package launch_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/agent/launch"
	"github.com/acpsnap/acpsnap/agentenv"
)

// TestReplayFixtureThatDoesNotLoad: the fixtures load while the agent
// already serves; one that does not load still ends Main with a
// UsageError naming it, without waiting for stdin to end.
func TestReplayFixtureThatDoesNotLoad(t *testing.T) {
	dir := t.TempDir()
	fixture := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(fixture, []byte("{\"type\":\"session\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{agentenv.ModeVar: "replay", agentenv.SessionsDirVar: dir, agentenv.FixtureVar: fixture}
	stdin, hold := io.Pipe() // never closed before Main returns
	defer hold.Close()
	done := make(chan error, 1)
	go func() {
		done <- launch.Main(context.Background(), launch.Process{Getenv: func(k string) string { return env[k] }, Stdin: stdin, Stdout: io.Discard})
	}()
	select {
	case err := <-done:
		var ue *launch.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "load the replay script") || !strings.Contains(err.Error(), fixture) {
			t.Fatalf("Main = %v, want a UsageError about loading %s", err, fixture)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Main kept serving after its fixture failed to load")
	}
	if _, err := os.Stat(filepath.Join(dir, agentenv.ReportFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a replay whose script did not load wrote a report (stat: %v)", err)
	}
}
