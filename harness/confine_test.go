package harness

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
	ts := &terminals{grace: time.Second}
	defer ts.closeAll()
	c := &client{cwd: cwd, aliases: []string{alias}, terms: ts}
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

func TestTerminalEnv(t *testing.T) {
	agent := []string{"PATH=/bin", "HOME=/h", "ACPSNAP_MODE=record", "ACPSNAP_FIXTURE=/m/session.jsonl",
		"DEEPSEEK_API_KEY=sk", "DEEPSEEK_MODEL=m", "OTHER_KEY=secret", "SCENARIO_VAR=x", "DEEPSEEKER=kept"}
	tests := []struct {
		name    string
		secrets map[string]string
		want    []string
	}{
		{"no secrets", nil, []string{"PATH=/bin", "HOME=/h", "OTHER_KEY=secret", "SCENARIO_VAR=x", "DEEPSEEKER=kept"}},
		{"secrets by name", map[string]string{"OTHER_KEY": "secret", "DEEPSEEK_API_KEY": "sk"},
			[]string{"PATH=/bin", "HOME=/h", "SCENARIO_VAR=x", "DEEPSEEKER=kept"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, terminalEnv(agent, tt.secrets)); diff != "" {
				t.Errorf("terminal env (-want +got):\n%s", diff)
			}
		})
	}
}
