package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// copyScenarios copies the named scenario folders of the bundled corpus into
// a new corpus folder.
func copyScenarios(t *testing.T, names ...string) string {
	t.Helper()
	dst := t.TempDir()
	for _, n := range append(names, "pins") { // the corpus's pins come along
		if out, err := exec.Command("cp", "-R", filepath.Join("..", "..", "..", "..", "snapshots", n), dst).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v: %s", n, err, out)
		}
	}
	return dst
}

// runOnTerminal runs the command line with stdout on a pseudo-terminal and
// returns what the terminal received.
func runOnTerminal(t *testing.T, vars map[string]string, args ...string) (string, int) {
	t.Helper()
	return runOnSizedTerminal(t, 0, vars, args...)
}

// TestProgressOnTerminal: on a terminal the run draws a live count line in
// place, prints only the scenarios that need attention above it, colours
// diffs unless NO_COLOR is set, and -v lists the slowest scenarios.
func TestProgressOnTerminal(t *testing.T) {
	dir := copyScenarios(t, "text-turn", "tool-read-file")
	stdout := filepath.Join(dir, "tool-read-file", "stdout.expected.jsonl")
	b, err := os.ReadFile(stdout)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stdout, bytes.Replace(b, []byte(`"end_turn"`), []byte(`"cancelled"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runOnTerminal(t, map[string]string{"TERM": "xterm"}, "run", "-dir", dir, "-parallel", "1", "-v")
	if code != ExitFailed {
		t.Errorf("exit code = %d, want %d; output:\n%s", code, ExitFailed, out)
	}
	for _, want := range []string{
		"\r\x1b[2K0/2 passed, 1 running…",
		"\r\x1b[2K1/2 passed, 1 failed",
		"FAIL  tool-read-file",
		"\x1b[", // a coloured diff
		"slowest scenarios:",
		"1 passed, 1 failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, out)
		}
	}
	if strings.Contains(out, "ok    text-turn") {
		t.Errorf("terminal output has the per-scenario ok line:\n%q", out)
	}

	out, _ = runOnTerminal(t, map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, "run", "-dir", dir, "-run", "tool-read-file")
	plain := strings.ReplaceAll(out, "\r\x1b[2K", "")
	if !strings.Contains(plain, "diff (-want +got)") || strings.Contains(plain, "\x1b[") {
		t.Errorf("NO_COLOR: the diff is coloured or missing:\n%q", out)
	}
}

func TestReadKey(t *testing.T) {
	type tc struct {
		in   string
		want byte
	}
	for _, c := range []tc{
		{"a", 'a'}, {"r\n", 'r'}, {"\nx s", 's'}, {"q", 'q'},
		{"\x03", 'q'}, {"\x04", 'q'}, {"", 'q'}, {"zzz", 'q'},
	} {
		var out bytes.Buffer
		got, _ := readKey(&out, bufio.NewReader(strings.NewReader(c.in)))
		if got != c.want {
			t.Errorf("readKey(%q) = %q, want %q", c.in, got, c.want)
		}
		if !strings.HasPrefix(out.String(), "[a]ccept [r]eject [s]kip [q]uit? ") {
			t.Errorf("readKey(%q) prompt = %q", c.in, out.String())
		}
	}
}

// TestAcceptRefusesPlantedLink: a pending file that is a symbolic link (to
// a file outside the repository) is never installed as a fixture.
func TestAcceptRefusesPlantedLink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join(dir, scenario.StdoutFile)
	if err := os.WriteFile(fixture, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, fixture+scenario.PendingSuffix); err != nil {
		t.Fatal(err)
	}
	if err := checkPending(fixture + scenario.PendingSuffix); err == nil || !strings.Contains(err.Error(), "not a regular file or folder") {
		t.Errorf("accept = %v, want the link refused", err)
	}
	if st, err := os.Lstat(fixture); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the fixture is no longer a regular file: %v, %v", st, err)
	}
}

// TestPlantedPendingTree: what an agent or a pull request plants inside a
// pending workspace.expected.new/ (a link out of the repository, a FIFO, a
// file over the cap) is refused by review and accept with its path, and
// accept installs nothing (before: review read through it and accept
// installed a link to outside as a fixture).
func TestPlantedPendingTree(t *testing.T) {
	type tcase struct {
		name  string
		plant func(tree string) error
		err   string
	}
	for _, tc := range []tcase{
		{"absolute link", func(tree string) error { return os.Symlink("/etc/passwd", filepath.Join(tree, "passwd")) },
			`passwd: symlink to "/etc/passwd" points out of the tree`},
		{"climbing link", func(tree string) error { return os.Symlink("../../../x", filepath.Join(tree, "d", "up")) },
			`d/up: symlink to "../../../x" points out of the tree`},
		{"fifo", func(tree string) error { return syscall.Mkfifo(filepath.Join(tree, "d", "pipe"), 0o644) },
			"d/pipe: not a file, folder or symbolic link (named pipe)"},
		{"over the cap", func(tree string) error {
			return os.Truncate(filepath.Join(tree, "d", "f"), safefile.DefaultMaxFileBytes+1)
		},
			fmt.Sprintf("d/f: %d bytes, more than the %d allowed", safefile.DefaultMaxFileBytes+1, safefile.DefaultMaxFileBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			expected := filepath.Join(dir, scenario.ExpectedDir)
			pending := expected + scenario.PendingSuffix
			for _, d := range []string{expected, filepath.Join(pending, "d")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(expected, "a.txt"), []byte("kept\n"), 0o644)
			os.WriteFile(filepath.Join(pending, "d", "f"), []byte("new\n"), 0o644)
			if err := tc.plant(pending); err != nil {
				t.Fatal(err)
			}
			e := &env{getenv: func(string) string { return "" }, stdout: &bytes.Buffer{}}
			if got := e.pendingDiff(pending); !strings.Contains(got, "refused: "+pending+": ") || !strings.Contains(got, tc.err) {
				t.Errorf("review shows %q, want it refused with %q", got, tc.err)
			}
			if err := checkPending(pending); err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "acpsnap reject") {
				t.Errorf("accept = %v, want %q refused", err, tc.err)
			}
			if b, err := os.ReadFile(filepath.Join(expected, "a.txt")); err != nil || string(b) != "kept\n" {
				t.Errorf("the expected tree changed: %q, %v", b, err)
			}
			if err := rejectPending(pending); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(pending); !os.IsNotExist(err) {
				t.Errorf("reject left %s: %v", pending, err)
			}
		})
	}
}
