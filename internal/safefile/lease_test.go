package safefile

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// leaseHolder is the child process of killedHolder: it takes a lease in
// LEASE_HOLD's folder and holds it until it is killed.
func leaseHolder() {
	parent := os.Getenv("LEASE_HOLD")
	if parent == "" {
		return
	}
	var l *Lease
	var err error
	if os.Getenv("LEASE_FILE") != "" {
		l, _, err = LeaseFile(parent, "run-")
	} else {
		l, err = LeaseDir(parent, "run-")
	}
	if err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString(l.Path() + "\n")
	select {}
}

// killedHolder starts a process holding a lease in parent (a file's
// with extra "LEASE_FILE=1"), SIGKILLs it once the lease exists, and
// returns the leftover's path.
func killedHolder(t *testing.T, parent string, extra ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "LEASE_HOLD="+parent), extra...)
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
		t.Fatalf("the holder printed no lease: %v", err)
	}
	return line[:len(line)-1]
}

// TestReap: the leftover of a killed holder is removed; this process's
// live lease, a released lease whose creator still runs, and folders not
// made by LeaseDir stay.
func TestReap(t *testing.T) {
	parent := t.TempDir()
	dead := killedHolder(t, parent)
	if err := os.WriteFile(filepath.Join(dead, "f"), nil, 0o400); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dead, 0o500) // a read-only leftover is still removed
	live, err := LeaseDir(parent, "run-")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Release()
	released, err := LeaseDir(parent, "run-")
	if err != nil {
		t.Fatal(err)
	}
	released.Release()
	released.Release()
	for _, name := range []string{"run-notapid-x", "other-1-x"} {
		if err := os.Mkdir(filepath.Join(parent, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	reaps(t, parent, dead)
	var left []string
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		left = append(left, filepath.Join(parent, e.Name()))
	}
	want := []string{filepath.Join(parent, "other-1-x"), live.Path(), released.Path(), filepath.Join(parent, "run-notapid-x")}
	if d := cmp.Diff(want, left, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("left (-want +got):\n%s", d)
	}
}

// TestDirNameLength: every folder LeaseDir makes has a name of one length, the
// process id in 7 digits and 8 random characters, so a path through it has
// one length every run.
func TestDirNameLength(t *testing.T) {
	parent := t.TempDir()
	seen := map[string]bool{}
	for range 50 {
		l, err := LeaseDir(parent, "run-")
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(l.Path())
		if !regexp.MustCompile(`^run-[0-9]{7}-[0-9a-z]{8}$`).MatchString(name) || len(name) != len("run-")+LeaseNameLen || seen[name] {
			t.Errorf("name %q: want run-, 7 digits, -, 8 letters or digits, each once", name)
		}
		if pid, ok := owner(name, "run-"); !ok || pid != os.Getpid() {
			t.Errorf("owner of %q: %d, %v", name, pid, ok)
		}
		seen[name] = true
		l.Remove()
	}
}

// TestReapFiles: a file held by a killed process is a leftover Reap
// removes; a file this process holds, or made but released, stays.
func TestReapFiles(t *testing.T) {
	parent := t.TempDir()
	dead := killedHolder(t, parent, "LEASE_FILE=1")
	live, f, err := LeaseFile(parent, "run-")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Release()
	if _, err := f.WriteString("written"); err != nil {
		t.Fatal(err)
	}
	reaps(t, parent, dead)
	if b, err := os.ReadFile(live.Path()); string(b) != "written" {
		t.Errorf("the live file holds %q, %v", b, err)
	}
}

// reaps checks that Reap of the leases named run- in parent removes want.
func reaps(t *testing.T, parent string, want ...string) {
	t.Helper()
	removed, err := Reap(parent, "run-")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, removed); d != "" {
		t.Errorf("removed (-want +got):\n%s", d)
	}
}
