package client

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
)

// TestClientConfinement drives fs/read_text_file, fs/write_text_file and
// the terminal cwd check through every spelling of the cwd (the cwd and an
// alias), with symbolic links that lead out, dangling ones included.
func TestClientConfinement(t *testing.T) {
	base := t.TempDir()
	cwd := filepath.Join(base, "root", "workspace")
	outside := filepath.Join(base, "outside")
	alias := filepath.Join(base, "alias")
	for _, d := range []string{filepath.Join(cwd, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{filepath.Join(outside, "secret.txt"): "secret\n", filepath.Join(cwd, "seed.txt"): "seeded\n"} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		alias:                          cwd,
		filepath.Join(cwd, "dang"):     "../../outside/dang.txt",              // relative, dangling, out
		filepath.Join(cwd, "dangabs"):  filepath.Join(outside, "dangabs.txt"), // absolute, dangling, out
		filepath.Join(cwd, "dangdir"):  "../../outside/newdir",                // a folder that does not exist yet
		filepath.Join(cwd, "sub/dang"): "../../../outside/subdang.txt",        // from a subfolder
		filepath.Join(cwd, "chain"):    "sub/../dang",                         // through another link
		filepath.Join(cwd, "out"):      outside,                               // existing folder out
		filepath.Join(cwd, "outfile"):  filepath.Join(outside, "secret.txt"),  // existing file out
		filepath.Join(cwd, "indang"):   "made.txt",                            // dangling, inside
		filepath.Join(cwd, "in"):       "sub",                                 // existing folder inside
	}
	for name, target := range links {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}

	type result struct{ Content, Err string }
	type testCase struct {
		method  string // read, write or terminal
		path    string // "{{cwd}}" is each spelling of the cwd
		content string // to write
		want    result
	}
	const link, out = "symbolic link", "outside the session cwd"
	tests := []testCase{
		{"write", "{{cwd}}/dang", "x", result{Err: link}},
		{"write", "{{cwd}}/dangabs", "x", result{Err: link}},
		{"write", "{{cwd}}/dangdir/x.txt", "x", result{Err: link}},
		{"write", "{{cwd}}/sub/dang", "x", result{Err: link}},
		{"write", "{{cwd}}/chain", "x", result{Err: link}},
		{"write", "{{cwd}}/out/new.txt", "x", result{Err: link}},
		{"read", "{{cwd}}/dang", "", result{Err: link}},
		{"read", "{{cwd}}/outfile", "", result{Err: link}},
		{"read", "{{cwd}}/out/secret.txt", "", result{Err: link}},
		{"read", "{{cwd}}/../../outside/secret.txt", "", result{Err: out}},
		{"read", "seed.txt", "", result{Err: "not absolute"}},
		{"terminal", "{{cwd}}/dangdir", "", result{Err: link}},
		{"terminal", "{{cwd}}/out", "", result{Err: link}},
		{"terminal", "/tmp", "", result{Err: out}},
		{"write", "{{cwd}}/indang", "made\n", result{}},
		{"read", "{{cwd}}/made.txt", "", result{Content: "made\n"}},
		{"write", "{{cwd}}/in/new.txt", "new\n", result{}},
		{"read", "{{cwd}}/sub/new.txt", "", result{Content: "new\n"}},
		{"read", "{{cwd}}/seed.txt", "", result{Content: "seeded\n"}},
		{"terminal", "{{cwd}}/in", "", result{}},
		{"terminal", "{{cwd}}", "", result{}},
	}
	ts := NewTerminals(nil, time.Second, false)
	defer ts.CloseAll()
	c := &Client{Cwd: cwd, Root: openRoot(t, cwd), Aliases: []string{alias}, Terms: ts}
	ctx := context.Background()
	for _, spelling := range []string{cwd, alias} {
		for _, tc := range tests {
			path := strings.ReplaceAll(tc.path, "{{cwd}}", spelling)
			var got result
			var err error
			switch tc.method {
			case "read":
				var r acp.ReadTextFileResponse
				r, err = c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: path})
				got.Content = r.Content
			case "write":
				_, err = c.WriteTextFile(ctx, acp.WriteTextFileRequest{Path: path, Content: tc.content})
			case "terminal":
				_, err = c.CreateTerminal(ctx, acp.CreateTerminalRequest{Command: "true", Cwd: &path})
			}
			if err != nil {
				got.Err = err.Error()
				if tc.want.Err != "" && strings.Contains(got.Err, tc.want.Err) {
					got.Err = tc.want.Err
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", tc.method, path, diff)
			}
		}
	}

	// Nothing was created outside the cwd.
	var found []string
	filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(base, p); !strings.HasPrefix(p, cwd) && rel != "." {
			found = append(found, rel)
		}
		return nil
	})
	sort.Strings(found)
	if diff := cmp.Diff([]string{"alias", "outside", "outside/secret.txt", "root"}, found); diff != "" {
		t.Errorf("files outside the cwd (-want +got):\n%s", diff)
	}
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// TestClientConfinementRace swaps a path between a file and a symbolic
// link to /etc/passwd while 2,000 reads and writes go through it: no read
// may return passwd and no write may reach it (a check-then-open did).
func TestClientConfinementRace(t *testing.T) {
	base := t.TempDir()
	cwd := filepath.Join(base, "workspace")
	outside := filepath.Join(base, "outside")
	os.MkdirAll(cwd, 0o755)
	os.MkdirAll(outside, 0o755)
	target := filepath.Join(outside, "target")
	os.WriteFile(target, []byte("root:x:0:0:outside\n"), 0o644)
	c := &Client{Cwd: cwd, Root: openRoot(t, cwd)}
	path := filepath.Join(cwd, "swap")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tmpLink, tmpFile := path+".l", path+".f"
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Symlink("/etc/passwd", tmpLink)
			os.Rename(tmpLink, path)
			os.WriteFile(tmpFile, []byte("inside\n"), 0o644)
			os.Rename(tmpFile, path)
			os.Symlink(target, tmpLink)
			os.Rename(tmpLink, path)
			os.WriteFile(tmpFile, []byte("inside\n"), 0o644)
			os.Rename(tmpFile, path)
		}
	}()
	ctx := context.Background()
	leaks, inside := 0, 0
	for range 2000 {
		r, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: path})
		if err == nil && strings.Contains(r.Content, "root:") {
			leaks++
		}
		if err == nil && r.Content == "inside\n" {
			inside++
		}
		c.WriteTextFile(ctx, acp.WriteTextFileRequest{Path: path, Content: "inside\n"})
	}
	close(stop)
	<-done
	if leaks > 0 {
		t.Errorf("%d of 2000 reads returned a file outside the cwd", leaks)
	}
	if b, _ := os.ReadFile(target); string(b) != "root:x:0:0:outside\n" {
		t.Errorf("a write reached %s through the swapped link: %q", target, b)
	}
	t.Logf("%d reads saw the file inside", inside)
}

// TestClientRefusesSpecialFiles: a FIFO, a link to /dev/zero and a
// directory are refused at once, with an answer, not read.
func TestClientRefusesSpecialFiles(t *testing.T) {
	cwd := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(cwd, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(cwd, "zero"))
	os.Mkdir(filepath.Join(cwd, "dir"), 0o755)
	c := &Client{Cwd: cwd, Root: openRoot(t, cwd)}
	for _, name := range []string{"fifo", "dir"} {
		_, err := c.ReadTextFile(context.Background(), acp.ReadTextFileRequest{Path: filepath.Join(cwd, name)})
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("read %s: %v, want not a regular file", name, err)
		}
	}
	if _, err := c.ReadTextFile(context.Background(), acp.ReadTextFileRequest{Path: filepath.Join(cwd, "zero")}); err == nil {
		t.Errorf("read of a link to /dev/zero succeeded")
	}
	// Opening a FIFO without a reader fails at once (ENXIO); with one, the
	// write is refused as not a regular file: an error either way.
	if _, err := c.WriteTextFile(context.Background(), acp.WriteTextFileRequest{Path: filepath.Join(cwd, "fifo"), Content: "x"}); err == nil {
		t.Errorf("write to a FIFO succeeded")
	}
}
