package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	for _, content := range []string{"first\n", "second\n"} {
		if err := Write(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != content {
			t.Fatalf("read back %q, %v; want %q", b, err, content)
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, %v; want 0644", st.Mode().Perm(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want only the target (no temporary left)", len(entries))
	}
}

func TestWriteFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "missing", "x"), []byte("x"), 0o644); err == nil {
		t.Error("Write into a missing folder succeeded")
	}
	target := filepath.Join(dir, "sub")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("x"), 0o644); err == nil {
		t.Error("Write over a folder succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries left, want only the folder", len(entries))
	}
}

// TestUpdate: writers that Update one file at once each add to what the
// others left; none is lost.
func TestUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.txt")
	const writers = 16
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Update(path, 0o644, func(old []byte) ([]byte, error) {
				return append(old, fmt.Sprintf("writer %d\n", i)...), nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != writers {
		t.Errorf("%d lines after %d updates, want one each:\n%s", n, writers, b)
	}
	wantErr := errors.New("refused")
	if err := Update(path, 0o644, func([]byte) ([]byte, error) { return nil, wantErr }); !errors.Is(err, wantErr) {
		t.Errorf("Update with a failing change = %v, want its error", err)
	}
	if b2, _ := os.ReadFile(path); string(b2) != string(b) {
		t.Error("a failed change rewrote the file")
	}
}
