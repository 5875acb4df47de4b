package replay

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/wire/anthropic"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/internal/wire/gemini"
	"github.com/acpsnap/acpsnap/internal/wire/openaichat"
	"github.com/acpsnap/acpsnap/internal/wire/openairesponses"
	"github.com/acpsnap/acpsnap/internal/wire/wiretest"
	"github.com/acpsnap/acpsnap/model"
)

// dialectCase is one dialect as a client sees it.
type dialectCase struct {
	dialect  string
	path     string // a model-call path, under a prefix
	jsonPath string // "": path; else the path of a non-streamed call
	respErr  func(status int, body []byte) *model.ProviderError
}

// dialectCases has a case per entry of the dialect table
// (TestDialectCasesCoverTheTable).
var dialectCases = []dialectCase{
	{"openai-chat", "/v1/chat/completions", "",
		func(s int, b []byte) *model.ProviderError { return openaichat.ResponseError(s, "", "", b) }},
	{"openai-responses", "/some/prefix/v1/responses", "",
		func(s int, b []byte) *model.ProviderError { return openairesponses.ResponseError(s, "", "", b) }},
	{"anthropic-messages", "/api/v1/messages", "",
		func(s int, b []byte) *model.ProviderError { return anthropic.ResponseError(s, "", b) }},
	{"gemini-generate-content", "/n/v1beta/models/m:streamGenerateContent?alt=sse", "/n/v1beta/models/m:generateContent",
		func(s int, b []byte) *model.ProviderError { return gemini.ResponseError(s, "", b) }},
}

func (dc dialectCase) jsonOr() string {
	if dc.jsonPath != "" {
		return dc.jsonPath
	}
	return dc.path
}

// want is what d's client side parses of chunks the server rendered.
func (dc dialectCase) want(chunks []model.Chunk) []model.Chunk {
	if dc.dialect == "gemini-generate-content" {
		return wiretest.WholeCalls(chunks) // calls whole, without ids, as the live API sends them
	}
	return chunks
}

func TestDialectCasesCoverTheTable(t *testing.T) {
	var got []string
	for _, dc := range dialectCases {
		got = append(got, dc.dialect)
	}
	if diff := cmp.Diff(dialect.Names(), got); diff != "" {
		t.Errorf("dialect cases (-want +got):\n%s", diff)
	}
}

func postBody(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

// TestServerDialects: the same script, served in each dialect and parsed
// by that dialect's client side, gives back its chunks and errors.
func TestServerDialects(t *testing.T) {
	refused := Entry{Kind: KindThrow, Message: "slow down", Code: model.CodeRateLimit}
	broken := Entry{Kind: KindThrow, Chunks: []model.Chunk{{Type: model.BlockStart, Index: 0, BlockType: model.BlockText}, {Type: model.TextDelta, Index: 0, Text: "Hel"}},
		Message: "gone", Code: model.CodeUnavailable, Accepted: true}
	for _, dc := range dialectCases {
		t.Run(dc.dialect, func(t *testing.T) {
			d, err := dialect.Lookup(dc.dialect)
			if err != nil {
				t.Fatal(err)
			}
			s := startServer(t, ServerConfig{Dialect: dc.dialect, Primary: Script{canonical, canonical, refused, broken}})
			var got []model.Chunk
			collect := func(c model.Chunk) error { got = append(got, c); return nil }
			_, body := postBody(t, s.URL()+dc.path, `{"model":"m","stream":true}`)
			if err := d.Codec.Decode(bytes.NewReader(body), collect); err != nil {
				t.Fatalf("decode stream: %v\n%s", err, body)
			}
			if diff := cmp.Diff(dc.want(canonical.Chunks), got); diff != "" {
				t.Errorf("streamed chunks (-want +got):\n%s", diff)
			}
			got = nil
			_, body = postBody(t, s.URL()+dc.jsonOr(), `{"model":"m","stream":false}`)
			if err := d.Codec.DecodeJSON(body, collect); err != nil {
				t.Fatalf("decode JSON: %v\n%s", err, body)
			}
			if diff := cmp.Diff(dc.want(wiretest.Merge(canonical.Chunks)), got); diff != "" {
				t.Errorf("JSON chunks (-want +got):\n%s", diff)
			}
			status, body := postBody(t, s.URL()+dc.path, `{"model":"m","stream":true}`)
			if perr := dc.respErr(status, body); status != 429 || perr.Code != model.CodeRateLimit || perr.Message != "slow down" {
				t.Errorf("refused: status %d, %v", status, perr)
			}
			got = nil
			_, body = postBody(t, s.URL()+dc.path, `{"model":"m","stream":true}`)
			err = d.Codec.Decode(bytes.NewReader(body), collect)
			if perr, ok := err.(*model.ProviderError); !ok || perr.Code != model.CodeUnavailable || perr.Message != "gone" {
				t.Errorf("mid-stream failure: %v", err)
			}
			if diff := cmp.Diff(broken.Chunks, got); diff != "" {
				t.Errorf("prefix (-want +got):\n%s", diff)
			}
			status, body = postBody(t, s.URL()+dc.path, `{}`)
			if perr := dc.respErr(status, body); status != 500 || perr.Code != model.CodeReplay {
				t.Errorf("exhausted: status %d, %v", status, perr)
			}
		})
	}
}

func TestServerDialectPaths(t *testing.T) {
	s := startServer(t, ServerConfig{Dialect: "anthropic-messages"})
	status, body := postBody(t, s.URL()+"/proxy/v1/messages/count_tokens", `{"model":"m","messages":[]}`)
	if want := `{"input_tokens":7}` + "\n"; status != 200 || string(body) != want {
		t.Errorf("count_tokens = %d %q, want 200 %q", status, body, want)
	}
	if r := s.Report(); r.Fixtures[0].Served != 0 || len(r.Errors) != 0 || len(s.Requests()) != 1 {
		t.Errorf("count_tokens consumed an entry or went unrecorded: %+v, %d requests", r, len(s.Requests()))
	}
	for _, path := range []string{"/chat/completions", "/v1/responses", "/v1/messages/batches"} {
		if status, _ := postBody(t, s.URL()+path, `{}`); status != http.StatusNotFound {
			t.Errorf("POST %s = %d, want 404", path, status)
		}
	}
	g := startServer(t, ServerConfig{Dialect: "gemini-generate-content"})
	status, body = postBody(t, g.URL()+"/v1beta/models/m:countTokens", `{"contents":[]}`)
	if want := `{"totalTokens":4}` + "\n"; status != 200 || string(body) != want {
		t.Errorf("countTokens = %d %q, want 200 %q", status, body, want)
	}
	if status, _ := postBody(t, g.URL()+"/v1beta/models/m:embedContent", `{}`); status != http.StatusNotFound {
		t.Errorf("POST :embedContent = %d, want 404", status)
	}
	if _, err := NewServer(ServerConfig{Dialect: "gopher"}); err == nil || !strings.Contains(err.Error(), `unknown dialect "gopher"`) {
		t.Errorf("unknown dialect: %v", err)
	}
}
