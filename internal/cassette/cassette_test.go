package cassette_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

// secret is in every test body: no diagnostic may contain it.
const secret = "SECRET-BODY-TEXT"

// testKind is a minimal kind: "event" frames with body {"n": integer, "text": string}.
var testKind = cassette.Kind{
	Name:  "test",
	Types: []string{"event"},
	Policy: func(p json.RawMessage) error {
		var v struct {
			Mode string `json:"mode"`
		}
		return cassette.Decode(p, &v)
	},
	Body: func(typ string, b json.RawMessage) error {
		m, err := cassette.Members(b)
		if err != nil {
			return err
		}
		if err := cassette.CheckMembers(m, []string{"n"}, []string{"text"}); err != nil {
			return err
		}
		if t, ok := m["text"]; ok && t[0] != '"' {
			return errors.New("$.text: want a string")
		}
		return nil
	},
}

// record writes a complete cassette with n events and returns its bytes.
func record(t testing.TB, path string, n int) []byte {
	t.Helper()
	w, err := cassette.Create(path, testKind, map[string]any{"mode": "x"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.Append("event", map[string]any{"n": i, "text": secret}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Complete(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func lines(b []byte) [][]byte {
	return bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

func join(ls [][]byte) []byte {
	var out []byte
	for _, l := range ls {
		out = append(out, l...)
		if !bytes.HasSuffix(l, []byte("\n")) {
			out = append(out, '\n')
		}
	}
	return out
}

func parse(t *testing.T, line []byte) cassette.Frame {
	t.Helper()
	f, err := cassette.ParseFrame(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// reframe rewrites frame i of ls with edit and recomputes its hash (a
// frame that is valid alone); with chain, later prevs and hashes too.
func reframe(t *testing.T, ls [][]byte, i int, chain bool, edit func(*cassette.Frame)) [][]byte {
	t.Helper()
	out := append([][]byte(nil), ls...)
	f := parse(t, out[i])
	edit(&f)
	f.Hash = f.Sum()
	out[i] = f.Marshal()
	for j := i + 1; chain && j < len(out); j++ {
		g := parse(t, out[j])
		g.Prev = f.Hash
		if g.Type == cassette.TypeComplete {
			g.Body = json.RawMessage(fmt.Sprintf(`{"frames":%d,"last":%q}`, g.Seq+1, f.Hash))
		}
		g.Hash = g.Sum()
		out[j], f = g.Marshal(), g
	}
	return out
}

func TestVerifyAccepts(t *testing.T) {
	b := record(t, filepath.Join(t.TempDir(), "c.jsonl"), 3)
	f, err := cassette.Verify(b, "c.jsonl", testKind)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"header": 1, "event": 3, "complete": 1}
	if diff := cmp.Diff(want, f.Counts()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if f.Total != 5 || f.Kind != "test" || f.Version != 1 || string(f.Policy) != `{"mode":"x"}` {
		t.Errorf("file = %+v", f)
	}
	if f.Frames[2].Seq != 3 || f.Last != f.Frames[2].Hash {
		t.Errorf("last = %s, frames[2] = %+v", f.Last, f.Frames[2])
	}
}

func TestVerifyRefuses(t *testing.T) {
	dir := t.TempDir()
	good := lines(record(t, filepath.Join(dir, "c.jsonl"), 3))
	tamper := func(i, at int) [][]byte {
		out := append([][]byte(nil), good...)
		l := append([]byte(nil), out[i]...)
		l[at] ^= 0x01
		out[i] = l
		return out
	}
	bodyAt := bytes.Index(good[2], []byte(secret))
	type refusal struct {
		name string
		data []byte
		want string // in the message
	}
	cases := []refusal{
		{"empty", nil, "c.jsonl: empty file"},
		{"truncated mid-line", join(good)[:len(join(good))-7], "c.jsonl:5: frame 4: truncated"},
		{"truncated at a line", join(good[:4]), "c.jsonl:5: frame 4: missing complete trailer"},
		{"tampered body byte", join(tamper(2, bodyAt)), "c.jsonl:3: frame 2: $.hash: does not match"},
		{"tampered seq digit", join(tamper(2, bytes.Index(good[2], []byte(`"seq":2`))+6)), "frame 2: $.hash: does not match"},
		{"tampered hash", join(tamper(1, bytes.Index(good[1], []byte(`"hash":"sha256:`))+16)), "frame 1: $.hash: does not match"},
		{"tampered into bad JSON", join(tamper(1, 0)), "frame 1: byte 1: invalid JSON"},
		{"dropped frame", join(append(append([][]byte{}, good[:2]...), good[3:]...)), "frame 2: seq is 3, want 2"},
		{"duplicated frame", join(append(append(append([][]byte{}, good[:3]...), good[2]), good[3:]...)), "frame 3: seq is 2, want 3"},
		{"reordered frames", join([][]byte{good[0], good[2], good[1], good[3], good[4]}), "frame 1: seq is 2, want 1"},
		{"broken chain", join(reframe(t, good, 2, false, func(f *cassette.Frame) { f.Prev = f.Hash })), "frame 2: $.prev: does not match the hash of frame 1 (broken chain)"},
		{"header prev", join(reframe(t, good, 0, true, func(f *cassette.Frame) { f.Prev = good1Hash(t, good) })), "frame 0: $.prev: the header's prev must be empty"},
		{"wrong version", join(reframe(t, good, 0, true, func(f *cassette.Frame) {
			f.Body = bytes.Replace(f.Body, []byte(`"version":1`), []byte(`"version":2`), 1)
		})), "frame 0: $.body.version: unsupported version 2 (this build reads version 1)"},
		{"wrong format", join(reframe(t, good, 0, true, func(f *cassette.Frame) {
			f.Body = bytes.Replace(f.Body, []byte(`acpsnap-cassette`), []byte(`other`), 1)
		})), "frame 0: $.body.format: not an acpsnap-cassette file"},
		{"unknown kind", join(reframe(t, good, 0, true, func(f *cassette.Frame) {
			f.Body = bytes.Replace(f.Body, []byte(`"kind":"test"`), []byte(`"kind":"zzz"`), 1)
		})), "frame 0: $.body.kind: unknown kind (want one of: test)"},
		{"header not first", join(good[1:]), "frame 0: seq is 1, want 0"},
		{"trailer count", join(reframe(t, good, 4, false, func(f *cassette.Frame) {
			f.Body = bytes.Replace(f.Body, []byte(`"frames":5`), []byte(`"frames":4`), 1)
		})), "frame 4: $.body.frames: the trailer counts 4 frames, the file has 5"},
		{"trailer hash", join(reframe(t, good, 4, false, func(f *cassette.Frame) {
			f.Body = json.RawMessage(`{"frames":5,"last":"` + parse(t, good[2]).Hash + `"}`)
		})), "frame 4: $.body.last: does not match the hash of frame 3"},
		{"frame after trailer", join(append(append([][]byte{}, good...), good[4])), "frame 5: a frame after the complete trailer"},
		{"second header", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Type = "header" })), "frame 1: a second header"},
		{"unknown type", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Type = "other" })), "frame 1: $.type: not a frame type of a test cassette"},
		{"body schema", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Body = json.RawMessage(`{"text":"` + secret + `"}`) })), "frame 1: $.body.n: missing"},
		{"body unknown member", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Body = json.RawMessage(`{"n":1,"zz":2}`) })), "frame 1: $.body.zz: unknown member"},
		{"duplicate key in body", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Body = json.RawMessage(`{"n":1,"n":2}`) })), "frame 1: byte 16: duplicate key"},
		{"deep duplicate key", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Body = json.RawMessage(`{"n":1,"text":"","x":[{"a":1,"a":1}]}`) })), "duplicate key"},
		{"nested too deep", join(reframe(t, good, 1, true, func(f *cassette.Frame) {
			f.Body = json.RawMessage(`{"n":1,"text":"","x":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`)
		})), "frame 1: byte 1028: nested deeper than 1000"},
		{"unsorted keys", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Body = json.RawMessage(`{"text":"","n":1}`) })), "not in canonical (sorted) order"},
		{"whitespace", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Body = json.RawMessage(`{"n": 1}`) })), "whitespace outside strings"},
		{"CRLF", bytes.ReplaceAll(join(good), []byte("\n"), []byte("\r\n")), "frame 0: byte "},
		{"leading zero", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Body = json.RawMessage(`{"n":01}`) })), "number with a leading zero"},
		{"non-canonical escape", join(reframe(t, good, 1, true, func(f *cassette.Frame) { f.Body = json.RawMessage(`{"n":1,"text":"\u0041"}`) })), "string escape not in canonical form"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := cassette.Verify(c.data, "c.jsonl", testKind)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) {
				t.Errorf("error %q, want it to contain %q", msg, c.want)
			}
			if strings.Contains(msg, secret) || strings.Contains(msg, `{"`) || strings.Contains(msg, dir) {
				t.Errorf("error %q quotes a body, a line or a path", msg)
			}
		})
	}
}

func good1Hash(t *testing.T, ls [][]byte) string { return parse(t, ls[1]).Hash }

func TestReadFileNamesNoAbsolutePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone.jsonl")
	_, err := cassette.ReadFile(path, testKind)
	if err == nil || strings.Contains(err.Error(), filepath.Dir(path)) || !strings.Contains(err.Error(), "gone.jsonl: cannot read") {
		t.Errorf("err = %v", err)
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.jsonl")
	record(t, path, 1)
	if _, err := cassette.Create(path, testKind, map[string]any{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("existing cassette: err = %v", err)
	}
	other := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(other+cassette.PartialSuffix, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cassette.Create(other, testKind, map[string]any{}); err == nil || !strings.Contains(err.Error(), "d.jsonl.partial: exists") {
		t.Errorf("existing partial: err = %v", err)
	}
	if _, err := cassette.Create(filepath.Join(dir, "e.jsonl"), testKind, map[string]any{"bogus": 1}); err == nil || !strings.Contains(err.Error(), "$.bogus: unknown member") {
		t.Errorf("bad policy: err = %v", err)
	}
	bad := testKind
	bad.Types = []string{"Event \"x\""}
	if _, err := cassette.Create(filepath.Join(dir, "f.jsonl"), bad, map[string]any{}); err == nil || !strings.Contains(err.Error(), "not a body frame type name") {
		t.Errorf("bad frame type: err = %v", err)
	}
}

func TestCloseWithoutCompleteKeepsPartial(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	w, err := cassette.Create(path, testKind, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append("event", map[string]any{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("published without Complete: %v", err)
	}
	b, err := os.ReadFile(path + cassette.PartialSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cassette.Verify(b, "c.jsonl.partial", testKind); err == nil || !strings.Contains(err.Error(), "frame 2: missing complete trailer") {
		t.Errorf("partial verifies: %v", err)
	}
	if err := w.Append("event", map[string]any{"n": 2}); err == nil {
		t.Error("Append after Close succeeded")
	}
}

func TestCompleteNeverOverwrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	w, err := cassette.Create(path, testKind, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("someone else's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := w.Complete(); err == nil || !strings.Contains(err.Error(), "not overwritten") {
		t.Errorf("Complete over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "someone else's\n" {
		t.Errorf("overwritten: %q", b)
	}
	if _, err := os.Stat(path + cassette.PartialSuffix); err != nil {
		t.Errorf("partial not kept: %v", err)
	}
}

func TestAppendChecksBody(t *testing.T) {
	w, err := cassette.Create(filepath.Join(t.TempDir(), "c.jsonl"), testKind, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Append("event", map[string]any{"text": "x"}); err == nil || !strings.Contains(err.Error(), "$.n: missing") {
		t.Errorf("bad body: %v", err)
	}
	if err := w.Append("nope", map[string]any{"n": 1}); err == nil {
		t.Error("unknown type accepted")
	}
	if err := w.Append("event", json.RawMessage(`{"n":1,"n":2}`)); err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Errorf("duplicate key: %v", err)
	}
}

func TestConcurrentAppendsChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	w, err := cassette.Create(path, testKind, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Append("event", map[string]any{"n": i}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := w.Complete(); err != nil {
		t.Fatal(err)
	}
	f, err := cassette.ReadFile(path, testKind)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Frames) != 20 {
		t.Errorf("%d frames, want 20", len(f.Frames))
	}
}

func TestLosslessNumbers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	w, err := cassette.Create(path, testKind, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	big := `{"n":123456789012345678901234567890.50e+3}`
	if err := w.Append("event", json.RawMessage(big)); err != nil {
		t.Fatal(err)
	}
	if err := w.Complete(); err != nil {
		t.Fatal(err)
	}
	f, err := cassette.ReadFile(path, testKind)
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Frames[0].Body) != big {
		t.Errorf("body = %s, want %s", f.Frames[0].Body, big)
	}
}
