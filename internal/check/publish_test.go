package check

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestMain: with CHECK_PUBLISH_KILLME set to a scenario folder, the test
// binary writes a fixture of it the way every writing mode does
// (writeFixture, then the replay of the staged copy), says "staged" from
// inside that replay and waits to be killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("CHECK_PUBLISH_KILLME"); dir != "" {
		writeFixture(dir, map[string][]byte{scenario.StdoutFile: []byte("changed\n")}, nil, false, func(string) error {
			os.Stdout.WriteString("staged\n")
			select {}
		})
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestKilledPublishBlocksNothing: a writing run SIGKILLed while it
// replays its staged copy leaves the scenario as it was and the guards
// clean; the next write replays a copy that is still named after its
// folder (so its manifest loads), publishes, and removes what the killed
// run left.
func TestKilledPublishBlocksNothing(t *testing.T) {
	root := t.TempDir()
	pins, _ := filepath.Glob(filepath.Join("..", "..", "snapshots", scenario.PinsDir, "*"))
	files := []string{"text-turn/" + scenario.ManifestFile, "text-turn/" + scenario.InputFile, "text-turn/" + scenario.StdoutFile, "text-turn/" + scenario.SessionFile}
	for _, p := range pins {
		files = append(files, scenario.PinsDir+"/"+filepath.Base(p))
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("..", "..", "snapshots", f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		if err := os.WriteFile(filepath.Join(root, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, "text-turn")
	before := readTree(t, dir)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CHECK_PUBLISH_KILLME="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, rerr := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	if line != "staged\n" {
		t.Fatalf("the writer said %q, %v", line, rerr)
	}
	if left := entryNames(t, root); len(left) != 3 {
		t.Fatalf("corpus root after the kill: %q, want the killed run's stage beside pins and text-turn", left)
	}
	if d := cmp.Diff(before, readTree(t, dir)); d != "" {
		t.Errorf("scenario after a killed write (-want +got):\n%s", d)
	}
	if vs := Verify(root, VerifyConfig{}); len(vs) > 0 {
		t.Errorf("guards after a killed write: %v, want none", vs)
	}
	if names, err := scenario.Names(root); err != nil || !cmp.Equal(names, []string{"text-turn"}) {
		t.Errorf("scenarios after a killed write: %q, %v; want only text-turn", names, err)
	}

	_, err = writeFixture(dir, map[string][]byte{scenario.StdoutFile: before[scenario.StdoutFile]}, nil, false, func(stage string) error {
		if filepath.Base(stage) != "text-turn" {
			t.Errorf("staged copy %s is not named after its folder", stage)
		}
		_, err := scenario.LoadManifest(filepath.Join(stage, scenario.ManifestFile))
		return err
	})
	if err != nil {
		t.Fatalf("the next write: %v", err)
	}
	if d := cmp.Diff([]string{"pins", "text-turn"}, entryNames(t, root)); d != "" {
		t.Errorf("corpus root after the next write (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, readTree(t, dir)); d != "" {
		t.Errorf("scenario after the next write (-want +got):\n%s", d)
	}
}

// readTree is the regular files directly in dir, by name.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	for _, n := range entryNames(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if st, serr := os.Stat(filepath.Join(dir, n)); serr == nil && st.IsDir() {
			b, err = []byte("(folder)"), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		got[n] = b
	}
	return got
}

func entryNames(t *testing.T, dir string) []string {
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

// TestAcceptRefusesNonPending: Accept installs only pending files directly
// inside its scenario folder, of the names a -pending run writes, of the
// type it writes them; anything else is refused before anything is staged
// or replayed, and the folder stays as it was (a planted evil.sh.new once
// became evil.sh, snapshot.yml.new replaced the manifest).
func TestAcceptRefusesNonPending(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "s")
	os.MkdirAll(filepath.Join(root, "other"), 0o755)
	os.MkdirAll(dir, 0o755)
	folder := filepath.Join(root, "t") // its session.jsonl.new is a folder
	os.MkdirAll(filepath.Join(folder, scenario.SessionFile+scenario.PendingSuffix), 0o755)
	os.WriteFile(filepath.Join(dir, scenario.ExpectedDir+scenario.PendingSuffix), nil, 0o644)
	for _, p := range []string{filepath.Join(dir, scenario.StdoutFile), filepath.Join(dir, scenario.StdoutFile+scenario.PendingSuffix),
		filepath.Join(root, "other", scenario.StdoutFile+scenario.PendingSuffix),
		filepath.Join(dir, "evil.sh.new"), filepath.Join(dir, scenario.ManifestFile+scenario.PendingSuffix)} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type tcase struct{ name, path string }
	dirOf := func(tc tcase) string {
		if filepath.Dir(tc.path) == folder {
			return folder
		}
		return dir
	}
	for _, tc := range []tcase{
		{"another scenario's", filepath.Join(root, "other", scenario.StdoutFile+scenario.PendingSuffix)},
		{"a fixture", filepath.Join(dir, scenario.StdoutFile)},
		{"a bare suffix", filepath.Join(dir, scenario.PendingSuffix)},
		{"a planted script", filepath.Join(dir, "evil.sh.new")},
		{"the manifest", filepath.Join(dir, scenario.ManifestFile+scenario.PendingSuffix)},
		{"a log that is a folder", filepath.Join(folder, scenario.SessionFile+scenario.PendingSuffix)},
		{"an expected workspace that is a file", filepath.Join(dir, scenario.ExpectedDir+scenario.PendingSuffix)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := dirOf(tc)
			before := readTree(t, dir)
			o := Accept(t.Context(), dir, []string{tc.path}, Config{})
			if want := "not a pending file of " + dir; o.Status != Failed || !strings.Contains(o.Reason, want) && !strings.Contains(o.Reason, "not what a -pending run writes there") {
				t.Errorf("Accept(%s) = %s %q, want it refused: %q", tc.path, o.Status, o.Reason, want)
			}
			if d := cmp.Diff(before, readTree(t, dir)); d != "" {
				t.Errorf("scenario after a refused accept (-want +got):\n%s", d)
			}
			if left := entryNames(t, root); len(left) != 3 {
				t.Errorf("corpus root after a refused accept: %q, want only other, s and t (no stage)", left)
			}
		})
	}
}
