package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/sandbox"
	"github.com/google/go-cmp/cmp"
)

func TestReport(t *testing.T) {
	type testCase struct {
		name            string
		names, connects []string
		want            string
	}
	cases := []testCase{
		{"nothing", nil, nil, "acpsnap: offline: no outbound attempts\n"},
		{"both", []string{"a.example", "b.example", "b.example"}, []string{"tcp 192.0.2.1:443"},
			"acpsnap: offline: outbound attempts, all refused:\n" +
				"  lookups (queries, name):\n       1 a.example\n       2 b.example\n" +
				"  connects (attempts, address):\n       1 tcp 192.0.2.1:443\n"},
		{"names made visible", []string{"a\x1b]0;owned\x07.example", "b\u200b\U000e0041.example"}, nil,
			"acpsnap: offline: outbound attempts, all refused:\n  lookups (queries, name):\n" +
				"       1 a\\x1b]0;owned\\x07.example\n       1 b\\u200b\\ue0041.example\n"},
		{"a flood of names is cut", floodNames(50000), nil,
			"acpsnap: offline: outbound attempts, all refused:\n  lookups (queries, name):\n" + floodLines(maxAttempts) +
				fmt.Sprintf("  %6d more, of %d others\n", 50000-maxAttempts, 50000-maxAttempts)},
		{"connects only", nil, []string{"udp 198.51.100.7:53"},
			"acpsnap: offline: outbound attempts, all refused:\n  connects (attempts, address):\n       1 udp 198.51.100.7:53\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a sandbox.Attempts
			for _, n := range c.names {
				a.Lookups = add(a.Lookups, n)
			}
			for _, k := range c.connects {
				a.Connects = add(a.Connects, k)
			}
			var out bytes.Buffer
			reportAttempts(&out, a)
			if diff := cmp.Diff(c.want, out.String()); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
}

// floodNames are n names, sorted, one query each.
func floodNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("n%05d.flood.example", i)
	}
	return out
}

func floodLines(n int) string {
	var sb strings.Builder
	for _, name := range floodNames(n) {
		fmt.Fprintf(&sb, "  %6d %s\n", 1, name)
	}
	return sb.String()
}

// add counts key in cs, whose keys come sorted.
func add(cs []sandbox.Count, key string) []sandbox.Count {
	if n := len(cs); n > 0 && cs[n-1].Key == key {
		cs[n-1].N++
		return cs
	}
	return append(cs, sandbox.Count{Key: key, N: 1})
}

// TestRunOffline runs one scenario of the bundled corpus with run -offline,
// through the flag wiring: the re-executed test binary is acpsnap inside
// the namespace, and the bundled agent (this binary's "agent") runs there.
func TestRunOffline(t *testing.T) {
	args := []string{"run", "-offline", "-dir", "../../../../snapshots", "-run", "^text-turn$", "-parallel", "1"}
	if os.Getenv(offlineEnv) != "" {
		e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ()}
		os.Exit(e.main(args))
	}
	saved := os.Args
	os.Args = []string{saved[0], "-test.run=^TestRunOffline$"} // what the namespace side runs
	t.Cleanup(func() { os.Args = saved })
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: os.Getenv, environ: os.Environ()}
	code := e.main(args)
	if code == ExitUsage && strings.Contains(stderr.String(), sandbox.ErrUnavailable.Error()) {
		t.Skipf("no network namespace on this machine: %s", stderr.String())
	}
	if code != ExitOK || !strings.Contains(stdout.String(), "1 passed, 0 failed") || !strings.Contains(stderr.String(), "acpsnap: offline: no outbound attempts") {
		t.Errorf("run -offline: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}

// TestNewOffline records a scenario with new -model -offline: the scripted
// model and the bundled agent both run inside the namespace.
func TestNewOffline(t *testing.T) {
	t.Setenv("CI", "") // new -model writes fixtures, which CI refuses
	dir := os.Getenv("ACPSNAP_TEST_NEW_OFFLINE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	model := filepath.Join(dir, "model.json")
	args := []string{"new", "-offline", "-dir", filepath.Join(dir, "corpus"), "-model", model, "text-greet"}
	if os.Getenv(offlineEnv) != "" {
		e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ()}
		os.Exit(e.main(args))
	}
	entry := `[{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"hi"},{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}]`
	if err := os.WriteFile(model, []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := os.Args
	os.Args = []string{saved[0], "-test.run=^TestNewOffline$"}
	t.Cleanup(func() { os.Args = saved })
	t.Setenv("ACPSNAP_TEST_NEW_OFFLINE_DIR", dir)
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: os.Getenv, environ: os.Environ()}
	code := e.main(args)
	if code == ExitUsage && strings.Contains(stderr.String(), sandbox.ErrUnavailable.Error()) {
		t.Skipf("no network namespace on this machine: %s", stderr.String())
	}
	if code != ExitOK || !strings.Contains(stderr.String(), "acpsnap: offline: no outbound attempts") {
		t.Fatalf("new -offline: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "corpus", "text-greet", "session.jsonl")); err != nil {
		t.Errorf("new -offline wrote no session log: %v\nstdout:\n%s", err, stdout.String())
	}
}

// TestNewOfflineScaffolds: new -offline without -model scaffolds (nothing
// to record yet) and names record -offline.
func TestNewOfflineScaffolds(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	dir := t.TempDir()
	if code := e.main([]string{"new", "-offline", "-dir", dir, "x-y"}); code != ExitOK {
		t.Fatalf("new -offline without -model: exit %d (stderr %q)", code, stderr.String())
	}
	if want := "record it with: acpsnap record -dir " + dir + " -offline -run '^x-y$'"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout %q, want it to contain %q", stdout.String(), want)
	}
}
