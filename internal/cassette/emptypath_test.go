package cassette_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
	"github.com/acpsnap/acpsnap/internal/cassette/tool"
)

// TestEmptyPathRefused: every cassette library refuses an empty path at
// open, and leaves no .partial or .lock file in the current folder.
func TestEmptyPathRefused(t *testing.T) {
	t.Chdir(t.TempDir())
	opens := map[string]func() error{
		"tool record": func() error { _, err := tool.Open(tool.Config{Mode: tool.Record, Include: []string{"x"}}); return err },
		"tool replay": func() error { _, err := tool.Open(tool.Config{Mode: tool.Replay}); return err },
		"subagent record": func() error {
			r, err := subagent.Record("", subagent.Options{})
			if err == nil {
				r.Close()
			}
			return err
		},
		"subagent replay": func() error { _, err := subagent.Replay("", subagent.Options{}); return err },
		"read":            func() error { _, err := cassette.ReadFile(""); return err },
	}
	for name, open := range opens {
		if err := open(); err == nil || !strings.Contains(err.Error(), "no path given") {
			t.Errorf("%s: err = %v, want the empty path refused", name, err)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("the current folder holds %d entries after the refusals (first %s), want none", len(entries), entries[0].Name())
	}
}

// TestReadFileOnlyRegular: a cassette that is a FIFO, a link (to
// /dev/zero) or a folder is refused with its path, never read.
func TestReadFileOnlyRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link, dir} {
		if _, err := cassette.ReadFile(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: err = %v, want not a regular file", p, err)
		}
	}
}
