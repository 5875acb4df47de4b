package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/cassette/tool"
)

// run is one run's folders, as the harness lays them out.
func run(nonce string) (cwd string, paths tool.Config) {
	root := "/tmp/acpsnap-" + nonce
	cwd = root + "/workspace"
	return cwd, tool.Config{Paths: tool.RunPaths(cwd, root+"/home", root), Include: []string{"*"}}
}

// TestPathsAcrossRuns: a call whose arguments, result and error hold the
// run's folders (absolute and relative to /) replays in a run with other
// folders: identity is the normalized form, and the replayed value and
// error carry today's folders. Without path rules the same replay is a
// CASSETTE_MISMATCH (the failure this guards against).
func TestPathsAcrossRuns(t *testing.T) {
	type call struct{ name, args, value, err string }
	calls := func(cwd string) []call {
		rel := strings.TrimPrefix(cwd, "/")
		return []call{
			{name: "bash", args: `{"command":"pwd"}`, value: `{"output":"` + cwd + `\n"}`},
			{name: "read_file", args: `{"path":"` + cwd + `/hello.txt"}`, value: `{"` + cwd + `/hello.txt":"hi","title":"` + rel + `/hello.txt"}`},
			{name: "read_file", args: `{"path":"` + cwd + `/gone.txt"}`, err: "open " + cwd + "/gone.txt: no such file"},
		}
	}
	do := func(t *testing.T, cas tool.Cassette, cs []call) []string {
		var got []string
		for _, c := range cs {
			v, err := cas.Call(context.Background(), "", c.name, json.RawMessage(c.args), func(context.Context) (json.RawMessage, error) {
				if c.err != "" {
					return nil, errors.New(c.err)
				}
				return json.RawMessage(c.value), nil
			})
			if err != nil {
				got = append(got, "error: "+err.Error())
			} else {
				got = append(got, string(v))
			}
		}
		return got
	}
	file := filepath.Join(t.TempDir(), "tools.cassette.jsonl")
	cwdA, cfg := run("a")
	cfg.Mode, cfg.File = tool.Record, file
	rec, err := tool.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"output":"` + cwdA + `\n"}`, `{"` + cwdA + `/hello.txt":"hi","title":"tmp/acpsnap-a/workspace/hello.txt"}`, "error: open " + cwdA + "/gone.txt: no such file"}
	if diff := cmp.Diff(want, do(t, rec, calls(cwdA))); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	stored, _ := os.ReadFile(file)
	if strings.Contains(string(stored), "acpsnap-a") || !strings.Contains(string(stored), `{{cwdRel}}/hello.txt`) {
		t.Errorf("the cassette stores the run's folders as given:\n%s", stored)
	}

	cwdB, cfg := run("b")
	cfg.Mode, cfg.File = tool.Replay, file
	p, err := tool.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{`{"output":"` + cwdB + `\n"}`, `{"` + cwdB + `/hello.txt":"hi","title":"tmp/acpsnap-b/workspace/hello.txt"}`, "error: open " + cwdB + "/gone.txt: no such file"}
	if diff := cmp.Diff(want, do(t, p, calls(cwdB))); diff != "" {
		t.Errorf("replay in another run (-want +got):\n%s", diff)
	}
	if err := p.Close(); err != nil {
		t.Errorf("close: %v", err)
	}

	// Without path rules the cassette (recorded without them too) does not
	// replay in another run.
	raw := filepath.Join(t.TempDir(), "tools.cassette.jsonl")
	rec, _ = tool.Open(tool.Config{Mode: tool.Record, File: raw, Include: []string{"*"}})
	do(t, rec, calls(cwdA))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	p, _ = tool.Open(tool.Config{Mode: tool.Replay, File: raw})
	got := do(t, p, calls(cwdB))
	if !strings.Contains(got[0], cwdA) || !strings.Contains(got[1], "CASSETTE_MISMATCH") {
		t.Errorf("without path rules: %q; want the stale cwd, then a mismatch", got)
	}
	p.Close()
}
