package subagent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFingerprints(t *testing.T) {
	base := rootParent()
	fp := func(p Parent) string { return mustFP(ContextFingerprint(p)) }
	rfp := func(r Request) string { return mustFP(RequestFingerprint(r)) }

	reordered := base
	reordered.Tools = []string{"task", "bash", "read"}
	if fp(base) != fp(reordered) {
		t.Error("the tool set's order changed the context fingerprint")
	}
	type change struct {
		name string
		edit func(*Parent)
	}
	for _, c := range []change{
		{"options", func(p *Parent) { p.Options = map[string]any{"model": "other"} }},
		{"cwd", func(p *Parent) { p.Cwd = "$CWD/sub" }},
		{"depth", func(p *Parent) { p.Depth = 1 }},
		{"permission mode", func(p *Parent) { p.PermissionMode = "ask" }},
		{"tool set", func(p *Parent) { p.Tools = []string{"bash"} }},
		{"inheritance", func(p *Parent) { p.InheritsContext = true }},
	} {
		p := base
		c.edit(&p)
		if fp(p) == fp(base) {
			t.Errorf("changing the %s kept the context fingerprint", c.name)
		}
	}
	moved := base
	moved.Path = "root/x-000000000000~1"
	if fp(moved) != fp(base) {
		t.Error("the path is the topology, not the context")
	}
	a := Request{Label: "x", Options: map[string]any{"a": 1, "b": []any{1, 2}}}
	b := Request{Label: "x", Options: map[string]any{"b": []any{1, 2}, "a": 1}}
	c := Request{Label: "x", Options: map[string]any{"b": []any{2, 1}, "a": 1}}
	if rfp(a) != rfp(b) {
		t.Error("key order changed the request fingerprint")
	}
	if rfp(a) == rfp(c) {
		t.Error("array order did not change the request fingerprint")
	}
	for _, r := range []Request{
		{Label: "y", Options: a.Options}, {Label: "x", Prompt: "p", Options: a.Options},
		{Label: "x", Options: a.Options, OutputSchema: map[string]any{"type": "object"}},
		{Label: "x", Options: a.Options, ToolFilter: []string{"read"}},
	} {
		if rfp(r) == rfp(a) {
			t.Errorf("request %+v has a's fingerprint", r)
		}
	}
}

// Two runs of one conversation differ in their ids; with the ids removed
// and the tool-call ids renumbered they have one fingerprint, and a call
// stays paired with its result.
func TestInheritedMessages(t *testing.T) {
	conv := func(msgID, callID string) []any {
		return []any{
			map[string]any{"role": "user", "id": msgID, "content": "hi"},
			map[string]any{"role": "assistant", "id": msgID + "2", "tool_calls": []any{map[string]any{"id": callID, "function": map[string]any{"name": "read"}}}},
			map[string]any{"role": "tool", "tool_call_id": callID, "content": "file"},
		}
	}
	got, err := NormalizeMessages(conv("m1", "call_abc"))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"role": "user", "content": "hi"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call-1", "function": map[string]any{"name": "read"}}}},
		map[string]any{"role": "tool", "tool_call_id": "call-1", "content": "file"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NormalizeMessages (-want +got):\n%s", diff)
	}
	p1, p2 := rootParent(), rootParent()
	p1.InheritsContext, p1.Messages = true, conv("m1", "call_abc")
	p2.InheritsContext, p2.Messages = true, conv("zz", "call_xyz")
	if mustFP(ContextFingerprint(p1)) != mustFP(ContextFingerprint(p2)) {
		t.Error("volatile ids changed the context fingerprint")
	}
	p2.Messages = append(p2.Messages, map[string]any{"role": "user", "content": "more"})
	if mustFP(ContextFingerprint(p1)) == mustFP(ContextFingerprint(p2)) {
		t.Error("a longer prefix kept the context fingerprint")
	}
	p3 := rootParent()
	p3.Messages = conv("m1", "call_abc") // not inherited: not part of the context
	if mustFP(ContextFingerprint(p3)) != mustFP(ContextFingerprint(rootParent())) {
		t.Error("messages counted without InheritsContext")
	}
}

func TestCallKey(t *testing.T) {
	k := CallKey("", "re view/../x", "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64), 3)
	if !strings.HasPrefix(k, "root/re_view_.._x-") || !strings.HasSuffix(k, "~3") || len(k) != len("root/re_view_.._x-")+12+2 {
		t.Errorf("CallKey = %q, want root/re_view_.._x-<12 hex>~3", k)
	}
}

func TestEscape(t *testing.T) {
	got := Escape("a\x1b[31m\u202e\nb\\\u2028")
	if want := `a\u001b[31m\u202e\u000ab\\\u2028`; got != want {
		t.Errorf("Escape = %q, want %q", got, want)
	}
}
