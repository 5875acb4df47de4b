package check

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/normalize"
)

// BenchmarkNormalizeLive normalizes the live side of an HTTP agent's run
// (its composed log, then its stdout, in the run's one context): the
// largest composed log of the example corpora.
func BenchmarkNormalizeLive(b *testing.B) {
	dir := filepath.Join("..", "..", "examples", "claude-agent-acp", "subagent-parallel")
	log, err := os.ReadFile(filepath.Join(dir, "session.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := os.ReadFile(filepath.Join(dir, "stdout.expected.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for l := range bytes.Lines(stdout) {
		lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
	}
	b.SetBytes(int64(len(log) + len(stdout)))
	for b.Loop() {
		res := &harness.Result{Logs: []harness.Log{{Raw: log}}, Stdout: lines, Cwd: "/tmp/acpsnap-1-2/workspace",
			Tokens: normalize.NewContext("/tmp/acpsnap-1-2/workspace")}
		if _, err := normalizeLive(res); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNormalizeLiveOnce: the live side of an HTTP run normalizes the
// composed log's header and envelope (the live cwd, the session id, a
// UUID in a path) and leaves its payloads as the harness normalized them:
// a body holding the live cwd comes out as it went in, which a second
// normalization would have turned into {{cwd}}.
func TestNormalizeLiveOnce(t *testing.T) {
	const cwd = "/tmp/acpsnap-1-2/workspace"
	const id = "0b9d4c1e-8f7a-4e2b-9c3d-5a6b7c8d9e0f"
	log := `{"type":"session","version":1,"id":"` + id + `","createdAt":17,"cwd":"` + cwd + `","dialect":"openai-chat","agent":{"name":"a","version":"1"}}
{"type":"model/request","seq":0,"time":0,"data":{"call":1,"method":"POST","path":"/v1/chat/completions?run=` + id + `","body":{"messages":[{"content":"` + cwd + `","role":"user"}]}}}
`
	c := normalize.NewContext(cwd)
	if _, err := c.Identify("session", id); err != nil {
		t.Fatal(err)
	}
	got, err := normalizeLive(&harness.Result{Logs: []harness.Log{{Raw: []byte(log)}}, Cwd: cwd, Tokens: c})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"agent":{"name":"a","version":"1"},"createdAt":0,"cwd":"{{cwd}}","dialect":"openai-chat","id":"{{session:1}}","type":"session","version":1}
{"data":{"body":{"messages":[{"content":"` + cwd + `","role":"user"}]},"call":1,"method":"POST","path":"/v1/chat/completions?run={{session:1}}"},"seq":0,"time":0,"type":"model/request"}
`
	if diff := cmp.Diff(want, string(got.Logs[0])); diff != "" {
		t.Errorf("live log (-want +got):\n%s", diff)
	}
}

// TestComposedIsSession: on every committed composed log of the example
// corpora, leaving the payloads alone gives the bytes normalizing them
// again gives: the payloads of a normalized log are a fixed point of the
// rules, so normalizing them once loses nothing.
func TestComposedIsSession(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "*", "session*.jsonl"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no example logs: %v", err)
	}
	for _, p := range logs {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		header, _, _ := bytes.Cut(raw, []byte("\n"))
		if !bytes.Contains(header, []byte(`"dialect"`)) {
			continue
		}
		fresh := func() *normalize.Context {
			c, err := normalize.FixtureContext(header)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		want, err := normalize.Session(raw, fresh())
		if err != nil {
			t.Fatal(err)
		}
		got, err := composed(raw, fresh())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s: normalizing the payloads once differs from twice", p)
		}
	}
}
