package harvest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPoolRecycles: roots recycled after a run are emptied beside the next
// run, which takes other roots, and come back from the Make after it in
// the same folder empty, their four folders mode 0700, the cwd seeded
// afresh; whatever the run left (files, a read-only folder, an entry
// beside the four) is gone. Close removes them.
func TestPoolRecycles(t *testing.T) {
	tmp, seed := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(seed, "notes.txt"), []byte("seed"), 0o644); err != nil {
		t.Fatal(err)
	}
	var pool Pool
	r, err := Make(&pool, tmp, seed)
	if err != nil {
		t.Fatal(err)
	}
	// What a run leaves behind.
	for _, f := range []string{filepath.Join(r.Cwd, "out.txt"), filepath.Join(r.Home, ".cache", "x"), filepath.Join(r.Sessions, "s1", "log.jsonl"), filepath.Join(r.Base, "stray")} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte("left"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(r.Home, ".cache"), 0o500); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(r.Tmp, 0o500); err != nil {
		t.Fatal(err)
	}
	if err := pool.Recycle(r); err != nil {
		t.Fatal(err)
	}
	next, err := Make(&pool, tmp, seed) // r is emptied beside it
	if err != nil {
		t.Fatal(err)
	}
	if next.Base == r.Base {
		t.Fatalf("the next Make took %s while it was being emptied", r.Base)
	}
	if err := pool.Recycle(next); err != nil {
		t.Fatal(err)
	}
	again, err := Make(&pool, tmp, seed)
	if err != nil {
		t.Fatal(err)
	}
	if again.Base != r.Base && again.Base != next.Base { // whichever was emptied first
		t.Fatalf("Make made %s, want recycled roots (%s or %s)", again.Base, r.Base, next.Base)
	}
	got := map[string]bool{}
	filepath.WalkDir(again.Base, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != again.Base {
			rel, _ := filepath.Rel(again.Base, p)
			got[rel] = true
			if fi, _ := d.Info(); d.IsDir() && fi.Mode().Perm() != 0o700 {
				t.Errorf("%s is mode %v, want 0700", rel, fi.Mode().Perm())
			}
		}
		return nil
	})
	want := map[string]bool{"workspace": true, "workspace/notes.txt": true, "home": true, "sessions": true, "tmp": true}
	if len(got) != len(want) {
		t.Errorf("the recycled roots hold %v, want %v", got, want)
	}
	// Another folder gets roots of its own.
	other, err := Make(&pool, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	if other.Base == r.Base {
		t.Errorf("roots of %s served a Make in another folder", tmp)
	}
	other.Remove()
	// Roots that cannot be emptied as they were are removed, not kept.
	if err := os.RemoveAll(again.Home); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(seed, again.Home); err != nil {
		t.Fatal(err)
	}
	if err := pool.Recycle(again); err != nil {
		t.Fatal(err)
	}
	held, err := Make(&pool, tmp, "") // again is emptied beside it
	if err != nil {
		t.Fatal(err)
	}
	// Close removes what the pool holds, once what it empties is done.
	pool.Recycle(held)
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(again.Base); !os.IsNotExist(err) {
		t.Errorf("roots whose home became a symbolic link were kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(seed, "notes.txt")); err != nil {
		t.Errorf("removing them reached through the link: %v", err)
	}
	// What comes back after Close is removed.
	late, _ := Make(&pool, tmp, "")
	pool.Recycle(late)
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("%s holds %d entries after Close, want none", tmp, len(entries))
	}
}
