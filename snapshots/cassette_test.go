package snapshots_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/testagents/httpfixture"
)

// replayed checks the scenario folder dir in replay mode with env appended
// to the harness environment.
func replayed(t testing.TB, dir string, environ ...string) check.Outcome {
	t.Helper()
	cfg := check.Config{Settings: harness.Settings{Agent: agentCommand, Environ: append(os.Environ(), environ...), Acpsnap: acpsnaptest.MCPProxy(t)}}
	return check.Check(context.Background(), dir, cfg)
}

func mustPass(t testing.TB, o check.Outcome) {
	t.Helper()
	if o.Status != check.Passed {
		t.Fatalf("%s: %s: %s\n%v\n%s\nstderr:\n%s", o.Name, o.Status, o.Reason, o.Err, o.Diff, o.Stderr)
	}
}

// TestFetchReplayNeverRunsTheBody: the fetch scenarios replay with nothing
// listening where they were recorded, and with the service back they still
// send it zero requests.
func TestFetchReplayNeverRunsTheBody(t *testing.T) {
	ln, err := net.Listen("tcp", httpfixture.Addr)
	if err != nil {
		t.Fatalf("the fixture address must be free for this test: %v", err)
	}
	ln.Close()
	for _, name := range []string{"tool-fetch", "tool-fetch-concurrent"} {
		mustPass(t, replayed(t, name)) // the service is gone
	}
	ln, err = net.Listen("tcp", httpfixture.Addr)
	if err != nil {
		t.Fatal(err)
	}
	svc := httpfixture.New()
	srv := &http.Server{Handler: svc}
	go srv.Serve(ln)
	defer srv.Close()
	for _, name := range []string{"tool-fetch", "tool-fetch-concurrent"} {
		mustPass(t, replayed(t, name))
	}
	if n := svc.Hits(); n != 0 {
		t.Errorf("the replays sent the service %d requests, want 0", n)
	}
}

// TestBashCassetteHasNoSideEffect: the selected bash command appends to
// $SIDE_EFFECT_FILE; in replay the file never appears. Without the
// cassette (tools: removed) the same run does create it, so the check can
// fail.
func TestBashCassetteHasNoSideEffect(t *testing.T) {
	type testCase struct {
		name        string
		cassette    bool
		wantCreated bool
	}
	for _, tc := range []testCase{{"replayed from the cassette", true, false}, {"run for real", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyScenario(t, "tool-bash-cassette")
			marker := filepath.Join(t.TempDir(), "side-effect")
			editFile(t, filepath.Join(dir, scenario.ManifestFile), "permission: auto\n", "permission: auto\nenv:\n  SIDE_EFFECT_FILE: "+marker+"\n")
			if !tc.cassette {
				dropCassette(t, dir, "tools:\n  include: [bash]\n")
			}
			mustPass(t, replayed(t, dir))
			_, err := os.Stat(marker)
			if created := err == nil; created != tc.wantCreated {
				t.Errorf("side effect happened: %v, want %v (%v)", created, tc.wantCreated, err)
			}
		})
	}
}

// dropCassette turns a cassette scenario into the same scenario without
// one: the manifest's tools key and the cassette file go.
func dropCassette(t testing.TB, dir, toolsKey string) {
	t.Helper()
	editFile(t, filepath.Join(dir, scenario.ManifestFile), toolsKey, "")
	if err := os.Remove(filepath.Join(dir, scenario.ToolCassetteFile)); err != nil {
		t.Fatal(err)
	}
}

// TestMCPReplayNeverStartsTheServer: with a program named like the real
// MCP server first on PATH (one that leaves a mark when started), the
// replay of tool-mcp passes and the program never runs.
func TestMCPReplayNeverStartsTheServer(t *testing.T) {
	bin := t.TempDir()
	mark := filepath.Join(t.TempDir(), "started")
	script := "#!/bin/sh\ntouch " + mark + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "acpsnap-mcp-echo"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mustPass(t, replayed(t, "tool-mcp", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH")))
	if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the real MCP server was started in replay (%v)", err)
	}
}

// TestChangedArgumentFailsWithMismatch: a copy whose model sends a changed
// argument fails with CASSETTE_MISMATCH, and the selected call after it is
// refused as poisoned — for the reference agent's own cassette and for the
// MCP proxy's.
func TestChangedArgumentFailsWithMismatch(t *testing.T) {
	type testCase struct {
		scenario, old, new string
		want               []string // in the failure's text
	}
	for _, tc := range []testCase{
		{"tool-fetch", `/weather\"`, `/weather?city=wuhan\"`, []string{"CASSETTE_MISMATCH", "arguments differ", "poisoned"}},
		{"tool-mcp", `\"b\":2`, `\"b\":3`, []string{"CASSETTE_MISMATCH", "arguments differ", "mcp server echo", "not consumed"}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			dir := copyScenario(t, tc.scenario)
			p := filepath.Join(dir, scenario.SessionFile)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tc.old) {
				t.Fatalf("%s: %s not found", p, tc.old)
			}
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), tc.old, tc.new)), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := harness.Run(context.Background(), harness.Config{Settings: harness.Settings{Agent: agentCommand, Acpsnap: acpsnaptest.MCPProxy(t)}, Dir: dir})
			if err == nil {
				t.Fatal("the run passed, want a failure")
			}
			text := err.Error()
			if res != nil {
				text += "\n" + string(bytes.Join(res.Stdout, []byte("\n")))
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("the failure does not say %q:\n%s", w, text)
				}
			}
		})
	}
}

// BenchmarkCassettePair replays tool-bash-cassette with its cassette and
// the same scenario without it (bash runs for real): the cassette's cost
// is the ratio of the two (scripts/bench, part d).
func BenchmarkCassettePair(b *testing.B) {
	without := copyScenario(b, "tool-bash-cassette")
	dropCassette(b, without, "tools:\n  include: [bash]\n")
	for _, c := range []struct{ name, dir string }{{"without", without}, {"with", "tool-bash-cassette"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				mustPass(b, replayed(b, c.dir))
			}
		})
	}
}

// TestMCPCassetteGuards: an MCP server's cassette must be present when
// input.json declares the server, and only then.
func TestMCPCassetteGuards(t *testing.T) {
	dir := copyScenario(t, "tool-mcp")
	root := filepath.Dir(dir)
	if vs := check.Verify(root, check.VerifyConfig{}); len(vs) != 0 {
		t.Fatalf("the copy fails its guards: %v", vs)
	}
	cas := filepath.Join(dir, scenario.MCPCassetteFile("echo"))
	if err := os.Rename(cas, filepath.Join(dir, scenario.MCPCassetteFile("other"))); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range check.Verify(root, check.VerifyConfig{}) {
		got = append(got, strings.TrimPrefix(v.String(), dir+string(filepath.Separator)))
	}
	want := []string{
		`mcp.echo.cassette.jsonl: required file is missing (input.json declares the MCP server "echo"; record the scenario)`,
		`mcp.other.cassette.jsonl: present but input.json declares no MCP server "other"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestToolCassetteRunFolders: a selected bash call whose result is the
// run's cwd (pwd) and one whose arguments hold it (the model repeats the
// path it was shown) record, and replay in later runs, each with other
// folders: the cassette stores {{cwd}}, identifies the call by it and
// hands the agent today's cwd (no CASSETTE_MISMATCH, no stale path).
func TestToolCassetteRunFolders(t *testing.T) {
	dir := copyScenario(t, "tool-bash-cassette")
	editFile(t, filepath.Join(dir, scenario.ManifestFile), "recording: authored\n", "recording: live\n") // record re-records live scenarios only
	if err := os.Remove(filepath.Join(dir, "model.json")); err != nil {
		t.Fatal(err)
	}
	_, o := recordScripted(t, dir, "["+toolEntry("call_1", "bash", `{"command":"pwd"}`)+","+
		toolEntry("call_2", "bash", `{"command":"wc -l < {{fromRequest:(/[-a-zA-Z0-9_./]*acpsnap-[-a-zA-Z0-9_]*/workspace)}}/data.csv"}`)+","+
		textEntry("Done.")+"]")
	mustPass(t, o)
	b, err := os.ReadFile(filepath.Join(dir, scenario.ToolCassetteFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"output":"{{cwd}}\n"`, `"command":"wc -l < {{cwd}}/data.csv"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the cassette lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "/acpsnap-") {
		t.Errorf("the cassette holds the recording's folders:\n%s", b)
	}
	for range 3 {
		mustPass(t, replayed(t, dir))
	}
}
