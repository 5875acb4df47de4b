package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/harness"
)

// TestRunRecyclesRoots: with a RootPool, the roots of a run that ended
// cleanly are emptied beside the next run and serve the one after it,
// which finds them as a fresh run would (the cwd seeded, nothing else); a run that fails gives its roots back to
// nobody; Close leaves the temporary folder empty.
func TestRunRecyclesRoots(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp, pool := t.TempDir(), &harness.RootPool{}
	ok := scenario{input: input(t, []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "hi")}, nil),
		files: map[string]string{"workspace/notes.txt": "seed"}}.write(t)
	bad := scenario{input: input(t, []map[string]any{op("initialize"), op("prompt", "text", "no session")}, nil)}.write(t)
	runIn := func(dir string, onStart func(harness.Roots)) (*harness.Result, error) {
		return harness.Run(context.Background(), harness.Config{Dir: dir, Settings: harness.Settings{
			Agent: []string{exe, "-test.run=^$"}, StepTimeout: 5 * time.Second, Grace: 300 * time.Millisecond,
			TempDir: tmp, Pool: pool, OnStart: onStart,
			Environ: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"},
		}})
	}
	leave := func(r harness.Roots) { // what a run leaves behind
		os.WriteFile(filepath.Join(r.Cwd, "left.txt"), []byte("x"), 0o644)
		os.WriteFile(filepath.Join(r.Home, ".rc"), []byte("x"), 0o644)
	}
	first, err := runIn(ok, leave)
	if err != nil {
		t.Fatal(err)
	}
	second, err := runIn(ok, leave) // the first's roots are emptied beside it
	if err != nil {
		t.Fatal(err)
	}
	if second.Root == first.Root {
		t.Errorf("the second run took %s while it was being emptied", first.Root)
	}
	var seen []string
	third, err := runIn(ok, func(r harness.Roots) {
		for _, d := range []string{r.Root, r.Cwd, r.Home} {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				seen = append(seen, filepath.Join(filepath.Base(d), e.Name()))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if third.Root != first.Root && third.Root != second.Root { // the first's, unless the second's were emptied first
		t.Errorf("the third run made %s, want recycled roots (%s or %s)", third.Root, first.Root, second.Root)
	}
	want := []string{filepath.Base(third.Root) + "/home", filepath.Base(third.Root) + "/sessions", filepath.Base(third.Root) + "/tmp",
		filepath.Base(third.Root) + "/workspace", "workspace/notes.txt"}
	sort.Strings(seen)
	if d := cmp.Diff(want, seen); d != "" {
		t.Errorf("the recycled roots at the start (-want +got):\n%s", d)
	}
	failed, err := runIn(bad, nil)
	if err == nil {
		t.Fatal("a prompt without a session passed")
	}
	if failed.Root != first.Root && failed.Root != second.Root {
		t.Errorf("the failing run made %s, want recycled roots (%s or %s)", failed.Root, first.Root, second.Root)
	}
	if _, serr := os.Stat(failed.Root); !os.IsNotExist(serr) {
		t.Errorf("the failed run's roots %s are still there: %v", failed.Root, serr)
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoLeftovers(t, tmp)
}
