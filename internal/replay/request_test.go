package replay

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
)

func TestPlayerFromRequest(t *testing.T) {
	script := Script{
		{Kind: KindChunks, Chunks: []model.Chunk{
			{Type: model.TextDelta, Text: `wrote {{fromRequest:"content":"made (report-[0-9a-f]+\.txt)"}} in {{cwd}}`},
			{Type: model.ToolCallDelta, Index: 1, ID: "{{toolCall:1}}", Name: "read_file", ArgumentsDelta: `{"path":"{{fromRequest:(report-[0-9a-f]+\.txt)}}"}`},
			{Type: model.Finish, Reason: model.FinishToolCalls}}},
		stopEntry("{{fromRequest:nonce=([0-9]+)}}"),
	}
	p, err := Load(Config{Primary: writeFixture(t, t.TempDir(), "session.jsonl", primaryHeader, script), NewID: counter()})
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{Model: "m", Messages: []model.Message{{Role: "user", Content: "made report-3f9a.txt"}}}
	got, err := collect(p, StreamRequest{SessionID: "s", Cwd: "/live", Request: RequestText(req)})
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Chunk{
		{Type: model.TextDelta, Text: "wrote report-3f9a.txt in /live"},
		{Type: model.ToolCallDelta, Index: 1, ID: "call_1", Name: "read_file", ArgumentsDelta: `{"path":"report-3f9a.txt"}`},
		{Type: model.Finish, Reason: model.FinishToolCalls},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("expanded chunks (-want +got):\n%s", d)
	}

	// A regex that does not match fails the call, naming the regex, the
	// entry and an excerpt of the request; the error reaches the report.
	_, err = collect(p, StreamRequest{SessionID: "s", Cwd: "/live", Request: RequestText(req)})
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.Code != "REPLAY" {
		t.Fatalf("err = %v, want a REPLAY provider error", err)
	}
	for _, part := range []string{"session.jsonl: entry 2", "{{fromRequest:nonce=([0-9]+)}}: no match in the request", `made report-3f9a.txt`} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("err = %v, want it to contain %q", err, part)
		}
	}
	if r := p.Report(); len(r.Errors) != 1 {
		t.Errorf("report errors = %q, want the one failure", r.Errors)
	}
}

func TestRequestText(t *testing.T) {
	req := model.Request{SessionID: "ignored", Model: "m", System: "sys", MaxTokens: 7,
		Messages: []model.Message{{Role: "user", Content: "a \"q\""}},
		Tools:    []model.ToolSpec{{Name: "t", Description: "d", Parameters: []byte(`{"type":"object"}`)}}}
	want := `{"model":"m","system":"sys","messages":[{"role":"user","content":"a \"q\""}],"tools":[{"name":"t","description":"d","parameters":{"type":"object"}}],"maxTokens":7}`
	if d := cmp.Diff(want, string(RequestText(req))); d != "" {
		t.Errorf("RequestText (-want +got):\n%s", d)
	}
}

func TestServerFromRequest(t *testing.T) {
	s := startServer(t, ServerConfig{Primary: Script{
		stopEntry(`served to {{fromRequest:"model":"([^"]+)"}}`),
		stopEntry(`{{fromRequest:"nonce":"([0-9]+)"}}`),
	}})
	got := post(t, context.Background(), s.URL()+"/chat/completions", "")
	if got.Status != 200 || !strings.Contains(got.Body, `"content":"served to deepseek-chat"`) {
		t.Errorf("response = %+v, want the placeholder expanded to the request's model", got)
	}
	got = post(t, context.Background(), s.URL()+"/chat/completions", "")
	wantMsg := `llmreplay: primary: entry 2 (request 2): fromrequest: offset 0: {{fromRequest:\"nonce\":\"([0-9]+)\"}}: no match in the request`
	if got.Status != 500 || !strings.Contains(got.Body, wantMsg) || !strings.Contains(got.Body, `"code":"REPLAY"`) {
		t.Errorf("response = %+v, want a REPLAY error containing %s", got, wantMsg)
	}
	if r := s.Report(); len(r.Errors) != 1 {
		t.Errorf("report errors = %q, want the one failure", r.Errors)
	}
}
