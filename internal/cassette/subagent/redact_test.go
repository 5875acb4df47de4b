package subagent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func redactString(t *testing.T, r redactor, in string) string {
	t.Helper()
	var tree any
	if err := json.Unmarshal([]byte(in), &tree); err != nil {
		t.Fatal(err)
	}
	out, _, err := r.tree(tree)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := canonical(out)
	return string(b)
}

func TestRedaction(t *testing.T) {
	on := redactor{on: true}
	type tc struct{ name, in, want string }
	for _, c := range []tc{
		{"secret key names", `{"api_key":"abc","Authorization":"xyz","password":1,"nested":{"clientSecret":"s"}}`,
			`{"Authorization":"[REDACTED]","api_key":"[REDACTED]","nested":{"clientSecret":"[REDACTED]"},"password":"[REDACTED]"}`},
		{"credential patterns in text", `{"text":"use sk-proj-abcdefghijklmnopqrstuvwx and ghp_abcdefghijklmnopqrstuvwxyz0123456789 now"}`,
			`{"text":"use [REDACTED] and [REDACTED] now"}`},
		{"bearer and aws", `["Authorization: Bearer abcdefghijklmnop1234", "AKIAABCDEFGHIJKLMNOP"]`,
			`["Authorization: [REDACTED]","[REDACTED]"]`},
		{"private key block", `"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"`, `"[REDACTED]"`},
		// false positives: none of these is a secret
		{"counts named like tokens", `{"maxTokens":100,"inputTokens":5,"tokenCount":2,"tokens":[1,2]}`,
			`{"inputTokens":5,"maxTokens":100,"tokenCount":2,"tokens":[1,2]}`},
		{"tool-call ids", `{"tool_call_id":"call_0a1b2c3d4e5f6a7b8c9d0e1f2a3b","id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV"}`,
			`{"id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV","tool_call_id":"call_0a1b2c3d4e5f6a7b8c9d0e1f2a3b"}`},
		{"hashes", `{"hash":"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}`,
			`{"hash":"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}`},
		{"words that contain sk-", `"the task-abcdefghijklmnopqrstuvwxyz list"`, `"the task-abcdefghijklmnopqrstuvwxyz list"`},
		{"structural members kept", `{"type":"text","mediaType":"image/png"}`, `{"mediaType":"image/png","type":"text"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, redactString(t, on, c.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	off := redactor{}
	if got := redactString(t, off, `{"api_key":"abc"}`); got != `{"api_key":"abc"}` {
		t.Errorf("redactSecrets false still redacted: %s", got)
	}
}

func TestRedactionPatterns(t *testing.T) {
	extra, err := compilePatterns([]string{`internal-[0-9]+`})
	if err != nil {
		t.Fatal(err)
	}
	r := redactor{extra: extra}
	if got := redactString(t, r, `"see INTERNAL-42"`); got != `"see [REDACTED]"` {
		t.Errorf("custom pattern (case-insensitive): %s", got)
	}
	for _, bad := range []string{`(`, ``, `x*`} {
		if _, err := (Options{RedactionPatterns: []string{bad}}).settings(); err == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
	// a pattern that would rewrite a structural member refuses the recording
	path := cassettePath(t)
	r2, err := Record(path, Options{RedactionPatterns: []string{`^text$`}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r2.Call(context.Background(), rootParent(), req("x", "p"), returns(Result{Output: json.RawMessage(`{"type":"text"}`), StopReason: "end_turn"}))
	wantErr(t, err, `structural member "type"`)
	if r2.Close() == nil {
		t.Error("a recorder that failed to record published")
	}
}

// Metadata storage keeps no prompt text; full storage keeps the redacted
// prompt. Fingerprints are of the unredacted request either way, so the
// live request matches in replay.
func TestRequestStorage(t *testing.T) {
	secret := "deploy with sk-abcdefghijklmnopqrstuvwxyz0123"
	q := Request{Label: "x", Prompt: "the secret prompt: " + secret, Options: map[string]any{"token": "t0ps3cret"}}
	for _, storage := range []string{"", StorageFull} {
		t.Run("storage="+storage, func(t *testing.T) {
			path := cassettePath(t)
			record(t, path, Options{RequestStorage: storage}, func(r *Recorder) {
				call(t, r, rootParent(), q, returns(textResult("ok")))
			})
			data := readFile(t, path)
			if strings.Contains(data, "sk-abc") || strings.Contains(data, "t0ps3cret") {
				t.Errorf("a secret reached the file")
			}
			if got := strings.Contains(data, "the secret prompt"); got != (storage == StorageFull) {
				t.Errorf("prompt text stored = %v with storage %q", got, storage)
			}
			c, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Interactions[0].Request.PromptBytes; got != len(q.Prompt) {
				t.Errorf("promptBytes = %d, want %d", got, len(q.Prompt))
			}
			p := replay(t, path, Options{})
			call(t, p, rootParent(), q, nil)
		})
	}
}

// A result redaction rewrote refuses to replay unless allowed.
func TestAllowRedactedReplay(t *testing.T) {
	path := cassettePath(t)
	leak := Result{Output: json.RawMessage(`{"text":"key is sk-abcdefghijklmnopqrstuvwxyz0123"}`), StopReason: "end_turn"}
	record(t, path, Options{}, func(r *Recorder) {
		if got := call(t, r, rootParent(), req("x", "p"), returns(leak)); string(got.Output) != string(leak.Output) {
			t.Errorf("the recording parent got %s, want the live result", got.Output)
		}
	})
	_, err := Replay(path, Options{})
	wantErr(t, err, "its result was redacted")
	p := replay(t, path, Options{AllowRedactedReplay: true})
	if got := call(t, p, rootParent(), req("x", "p"), nil); !strings.Contains(string(got.Output), Redacted) {
		t.Errorf("replayed %s, want the redacted result", got.Output)
	}
}
