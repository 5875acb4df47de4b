package safefile

import (
	"bufio"
	"errors"
	"github.com/google/go-cmp/cmp"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestMain: with PUBLISH_KILLME set, the test binary publishes that
// folder and, mid-change (one file rewritten, one not), says so and waits
// to be killed.
func TestMain(m *testing.M) {
	leaseHolder()
	if path := os.Getenv("WRITE_KILLME"); path != "" {
		// A Write that never ends: its temporary file is written and held.
		l, _, err := LeaseFile(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
		if err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString(l.Path() + "\n")
		select {}
	}
	if dir := os.Getenv("PUBLISH_KILLME"); dir != "" {
		Publish(dir, func(stage string) error {
			os.Remove(filepath.Join(stage, "a"))
			os.WriteFile(filepath.Join(stage, "a"), []byte("new a\n"), 0o644)
			os.Stdout.WriteString("staged\n")
			select {}
		})
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// tree lists the files under root as rel path → content ("->target" for a
// link, "/" suffix for a folder).
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case rel == ".":
		case d.IsDir():
			got[rel+"/"] = ""
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			got[rel] = "->" + target
		default:
			b, _ := os.ReadFile(p)
			got[rel] = string(b)
		}
		return nil
	})
	return got
}

func scenarioDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scn")
	for _, d := range []string{dir, filepath.Join(dir, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{"a": "old a\n", "b": "old b\n", "sub/c": "old c\n", ".sub.tmp-123": "killed copy\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPublish: the change is published whole; the old files are not
// written through their hard links; leftovers inside go; nothing is left
// beside the folder.
func TestPublish(t *testing.T) {
	dir := scenarioDir(t)
	err := Publish(dir, func(stage string) error {
		if filepath.Base(stage) != "scn" {
			t.Errorf("stage %s is not named after the folder", stage)
		}
		os.Remove(filepath.Join(stage, "a"))
		if err := os.WriteFile(filepath.Join(stage, "a"), []byte("new a\n"), 0o644); err != nil {
			return err
		}
		return os.RemoveAll(filepath.Join(stage, "sub"))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "new a\n", "b": "old b\n", "link": "->a"}
	if d := cmp.Diff(want, tree(t, dir)); d != "" {
		t.Errorf("published tree (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"scn"}, names(t, filepath.Dir(dir))); d != "" {
		t.Errorf("beside the folder (-want +got):\n%s", d)
	}
}

// TestPublishFailed: a change that fails publishes nothing and leaves no
// stage.
func TestPublishFailed(t *testing.T) {
	dir := scenarioDir(t)
	before := tree(t, dir)
	err := Publish(dir, func(stage string) error {
		os.Remove(filepath.Join(stage, "a"))
		os.WriteFile(filepath.Join(stage, "a"), []byte("new a\n"), 0o644)
		return errors.New("disk full")
	})
	if err == nil || err.Error() != "disk full" {
		t.Fatalf("Publish = %v, want the change's error", err)
	}
	if d := cmp.Diff(before, tree(t, dir)); d != "" {
		t.Errorf("tree after a failed publish (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"scn"}, names(t, filepath.Dir(dir))); d != "" {
		t.Errorf("beside the folder (-want +got):\n%s", d)
	}
}

// killed runs this test binary with env (see TestMain), SIGKILLs it once
// it has said its first line, and returns that line.
func killed(t *testing.T, env string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	if err != nil {
		t.Fatalf("the process said %q, %v", line, err)
	}
	return strings.TrimSuffix(line, "\n")
}

// TestPublishKilled: a publisher SIGKILLed mid-change leaves the old tree
// whole and a stage beside it, which the next Publish removes.
func TestPublishKilled(t *testing.T) {
	dir := scenarioDir(t)
	before := tree(t, dir)
	if line := killed(t, "PUBLISH_KILLME="+dir); line != "staged" {
		t.Fatalf("the publisher said %q", line)
	}
	if d := cmp.Diff(before, tree(t, dir)); d != "" {
		t.Errorf("tree after a killed publish (-want +got):\n%s", d)
	}
	if left := names(t, filepath.Dir(dir)); len(left) != 2 || !IsLeftover(left[0]) {
		t.Fatalf("beside the folder: %q, want the killed run's stage and scn", left)
	}
	if err := Publish(dir, func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"scn"}, names(t, filepath.Dir(dir))); d != "" {
		t.Errorf("beside the folder after the next publish (-want +got):\n%s", d)
	}
}

// TestWriteKilled: a writer killed while it writes leaves its temporary
// file beside the target (a killed run -html left an 80 MiB one forever);
// the next Write of the target removes it, and leaves a live writer's.
func TestWriteKilled(t *testing.T) {
	report := filepath.Join(t.TempDir(), "report.html")
	if line := killed(t, "WRITE_KILLME="+report); !IsLeftover(filepath.Base(line)) {
		t.Fatalf("the writer said %q", line)
	}
	live, f, err := LeaseFile(filepath.Dir(report), ".report.html.tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Release()
	f.WriteString("in progress")
	if err := Write(report, []byte("<html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Base(live.Path()), "report.html"}
	sort.Strings(want)
	if d := cmp.Diff(want, names(t, filepath.Dir(report))); d != "" {
		t.Errorf("beside the report after the next write (-want +got):\n%s", d)
	}
}

func TestIsLeftover(t *testing.T) {
	for name, want := range map[string]bool{
		".workspace.expected.tmp-1234": true,
		".stdout.expected.jsonl.tmp-9": true,
		".workspace.expected.old-77":   true,
		".cancel.publish-42-1234":      true,
		"workspace.expected":           false,
		".tmp-":                        false,
		".x.tmp-":                      false,
		"session.jsonl":                false,
	} {
		if got := IsLeftover(name); got != want {
			t.Errorf("IsLeftover(%q) = %v, want %v", name, got, want)
		}
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}
