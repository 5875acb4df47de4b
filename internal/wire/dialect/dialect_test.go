package dialect_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/wire/dialect"
)

func TestRoute(t *testing.T) {
	type want struct {
		Path  string
		Kind  dialect.Kind
		Model string
		OK    bool
	}
	for _, tc := range []struct {
		dialect, path string
		want          want
	}{
		{"openai-chat", "/nonce/v1/chat/completions", want{"/chat/completions", dialect.Call, "", true}},
		{"openai-chat", "/v1/responses", want{}},
		{"openai-responses", "/responses", want{"/responses", dialect.Call, "", true}},
		{"anthropic-messages", "/x/v1/messages", want{"/v1/messages", dialect.Call, "", true}},
		{"anthropic-messages", "/x/v1/messages/count_tokens", want{"/v1/messages/count_tokens", dialect.Count, "", true}},
		{"anthropic-messages", "/x/v1/messages/batches", want{}},
		{"gemini-generate-content", "/n/v1beta/models/gemini-2.5-flash:streamGenerateContent", want{"/v1beta/models/{model}:streamGenerateContent", dialect.Call, "gemini-2.5-flash", true}},
		{"gemini-generate-content", "/v1beta/models/m:generateContent", want{"/v1beta/models/{model}:generateContent", dialect.Call, "m", true}},
		{"gemini-generate-content", "/v1beta/models/m:countTokens", want{"/v1beta/models/{model}:countTokens", dialect.Count, "m", true}},
		{"gemini-generate-content", "/v1beta/models/:generateContent", want{}},
		{"gemini-generate-content", "/v1beta/models/a/b:generateContent", want{}},
		{"gemini-generate-content", "/v1/models/m:generateContent", want{}},
		{"gemini-generate-content", "/v1beta/models/m:generateContentX", want{}},
		{"gemini-generate-content", "/v1beta/models/x?key=1#:generateContent", want{}},
		{"gemini-generate-content", "/v1beta/models/x%:generateContent", want{}},
		{"gemini-generate-content", "/v1beta/models/x y:generateContent", want{}},
		{"gemini-generate-content", "/v1beta/models/x\\y:generateContent", want{}},
	} {
		t.Run(tc.dialect+tc.path, func(t *testing.T) {
			d, err := dialect.Lookup(tc.dialect)
			if err != nil {
				t.Fatal(err)
			}
			ep, m, ok := d.Route(tc.path)
			if diff := cmp.Diff(tc.want, want{ep.Path, ep.Kind, m, ok}); diff != "" {
				t.Errorf("Route(%q) (-want +got):\n%s", tc.path, diff)
			}
		})
	}
}

// TestWithoutKey: the parameters that carry a key leave a query, the
// others stay as written, in order; a dialect without one keeps it all.
func TestWithoutKey(t *testing.T) {
	gemini, _ := dialect.Lookup("gemini-generate-content")
	chat, _ := dialect.Lookup("openai-chat")
	for _, tc := range []struct {
		d        *dialect.Dialect
		in, want string
	}{
		{gemini, "", ""},
		{gemini, "key=sk-1", ""},
		{gemini, "alt=sse&key=sk-1", "alt=sse"},
		{gemini, "key=a&alt=sse&%6bey=b&key", "alt=sse"},
		{gemini, "keys=1&x=%20y", "keys=1&x=%20y"},
		{chat, "key=sk-1&a=1", "key=sk-1&a=1"},
	} {
		if got := tc.d.WithoutKey(tc.in); got != tc.want {
			t.Errorf("%s: WithoutKey(%q) = %q, want %q", tc.d.Name, tc.in, got, tc.want)
		}
	}
}

// TestTable: every entry is complete, so that a new dialect cannot be
// half-described.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range dialect.Table {
		c := d.Codec
		switch {
		case seen[d.Name]:
			t.Errorf("%s: listed twice", d.Name)
		case d.Title == "" || d.IDPrefix == "" || d.KeyHeader == "" || d.Upstream == "" || d.URLEnv == "" || len(d.KeyEnv) == 0:
			t.Errorf("%s: incomplete entry %+v", d.Name, d)
		case d.Conversation == "" || !strings.HasPrefix(d.System, "/"):
			t.Errorf("%s: conversation %q, system %q", d.Name, d.Conversation, d.System)
		case c.Render == nil || c.RenderJSON == nil || c.RenderHang == nil || c.ErrorBody == nil || c.Decode == nil || c.DecodeJSON == nil:
			t.Errorf("%s: incomplete codec", d.Name)
		}
		seen[d.Name] = true
		for _, ep := range d.Endpoints {
			if ep.Method != http.MethodPost || !strings.HasPrefix(ep.Path, "/") || ep.Kind == dialect.Count && c.CountTokens == nil {
				t.Errorf("%s: endpoint %+v", d.Name, ep)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	_, err := dialect.Lookup("gopher")
	want := `unknown dialect "gopher" (want ` + dialect.List(nil) + ")"
	if err == nil || err.Error() != want {
		t.Errorf("Lookup(gopher) = %v, want %s", err, want)
	}
}

func TestSetKey(t *testing.T) {
	h := http.Header{}
	for _, d := range dialect.Table {
		d.SetKey(h, "k")
	}
	want := http.Header{"Authorization": {"Bearer k"}, "X-Api-Key": {"k"}, "X-Goog-Api-Key": {"k"}}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

func ExampleList() {
	fmt.Println(dialect.List([]string{"native"}))
	// Output: native, openai-chat, openai-responses, anthropic-messages or gemini-generate-content
}
