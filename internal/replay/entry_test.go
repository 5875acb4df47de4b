package replay

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
)

func TestDecodeScript(t *testing.T) {
	in := `[
  {"kind": "chunks", "chunks": [{"type":"text-delta","index":0,"text":"hi {{cwd}}"}, {"type":"finish","reason":"stop"}]},
  {"kind": "throw", "chunks": [], "message": "slow down", "code": "RATE_LIMIT"},
  {"kind": "throw", "chunks": [{"type":"block-start","index":0,"blockType":"text"}], "message": "cut", "code": "STREAM", "accepted": true},
  {"kind": "hang"},
  {"kind": "hang", "readyFile": "dir/ready"}
]`
	want := Script{
		{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.TextDelta, Text: "hi {{cwd}}"}, {Type: model.Finish, Reason: model.FinishStop}}},
		{Kind: KindThrow, Chunks: []model.Chunk{}, Message: "slow down", Code: "RATE_LIMIT"},
		{Kind: KindThrow, Chunks: []model.Chunk{{Type: model.BlockStart, BlockType: model.BlockText}}, Message: "cut", Code: "STREAM", Accepted: true},
		{Kind: KindHang},
		{Kind: KindHang, ReadyFile: "dir/ready"},
	}
	got, err := DecodeScript(strings.NewReader(in), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("script (-want +got):\n%s", diff)
	}
	// MarshalJSON writes what DecodeScript reads back.
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	again, err := DecodeScript(strings.NewReader(string(b)), "again.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("marshalled and decoded again (-want +got):\n%s", diff)
	}
	var viaJSON Script
	if err := json.Unmarshal([]byte(in), &viaJSON); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, viaJSON); diff != "" {
		t.Errorf("json.Unmarshal (-want +got):\n%s", diff)
	}
}

func TestDecodeScriptEmpty(t *testing.T) {
	got, err := DecodeScript(strings.NewReader(" []\n"), "s.json")
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("DecodeScript([]) = %#v, %v; want an empty, non-nil script", got, err)
	}
}

// decodeErrorCase is one malformed document and the error it must give.
type decodeErrorCase struct {
	name string
	in   string
	want string
}

const fin = `{"type":"finish","reason":"stop"}`

var scriptErrors = []decodeErrorCase{
	{"syntax", "[\n{\"kind\":}\n]", `s.json:2: $: invalid JSON: invalid character '}' looking for beginning of value`},
	{"empty file", "", `s.json:1: $: invalid JSON: unexpected end of JSON input`},
	{"trailing data", "[] []", `s.json:1: $: invalid JSON: invalid character '[' after top-level value`},
	{"not an array", `{"kind":"hang"}`, `s.json:1: $: want an array of entries, got an object`},
	{"entry not an object", "[\n  {\"kind\":\"hang\"},\n  3\n]", `s.json:3: $[1]: want an entry object, got a number`},
	{"missing kind", `[{"chunks":[]}]`, `s.json:1: $[0].kind: missing`},
	{"kind not a string", `[{"kind":1}]`, `s.json:1: $[0].kind: want a string, got a number`},
	{"unknown kind", `[{"kind":"chunk"}]`, `s.json:1: $[0].kind: unknown entry kind "chunk" (want chunks, throw or hang)`},
	{"duplicate key", `[{"kind":"hang","kind":"hang"}]`, `s.json:1: $[0].kind: duplicate key`},
	{"chunks: missing chunks", `[{"kind":"chunks"}]`, `s.json:1: $[0].chunks: missing`},
	{"chunks: unknown key", `[{"kind":"chunks","chunks":[` + fin + `],"code":"X"}]`, `s.json:1: $[0].code: unknown key (allowed: kind, chunks)`},
	{"chunks: empty", `[{"kind":"chunks","chunks":[]}]`, `s.json:1: $[0].chunks: a chunks entry needs at least its finish chunk`},
	{"chunks: not an array", `[{"kind":"chunks","chunks":{}}]`, `s.json:1: $[0].chunks: want an array of chunks, got an object`},
	{"chunks: no finish", `[{"kind":"chunks","chunks":[{"type":"block-end","index":0}]}]`, `s.json:1: $[0].chunks[0]: a chunks entry ends with a finish chunk, not "block-end"`},
	{"chunks: two finishes", `[{"kind":"chunks","chunks":[` + fin + `,` + fin + `]}]`, `s.json:1: $[0].chunks[0]: finish before the last chunk: one entry is one model call; split it`},
	{"chunks: provider error finish", `[{"kind":"chunks","chunks":[{"type":"finish","reason":"error","error":"x","code":"AUTH"}]}]`,
		`s.json:1: $[0].chunks[0]: a finish with reason error and a code is a provider error: write it as a throw entry`},
	{"unknown chunk", "[\n {\"kind\":\"chunks\",\"chunks\":[\n  {\"type\":\"block-end\",\"index\":0},\n  {\"type\":\"text-delt\"}, " + fin + "]}]", `s.json:4: $[0].chunks[1].type: unknown chunk "text-delt"`},
	{"chunk missing key", `[{"kind":"chunks","chunks":[{"type":"text-delta","index":0}]}]`, `s.json:1: $[0].chunks[0].text: missing`},
	{"chunk unknown key", `[{"kind":"chunks","chunks":[{"type":"finish","reason":"stop","x":1}]}]`, `s.json:1: $[0].chunks[0].x: unknown key (allowed: type, reason, error, code)`},
	{"chunk not an object", `[{"kind":"chunks","chunks":[1]}]`, `s.json:1: $[0].chunks[0]: chunk must be an object: json: cannot unmarshal number into Go value of type map[string]json.RawMessage`},
	{"throw: missing code", `[{"kind":"throw","chunks":[],"message":"m"}]`, `s.json:1: $[0].code: missing`},
	{"throw: empty code", `[{"kind":"throw","chunks":[],"message":"m","code":""}]`, `s.json:1: $[0].code: empty code: a throw needs a provider error code (RATE_LIMIT, UNAVAILABLE, AUTH, …)`},
	{"throw: message not a string", `[{"kind":"throw","chunks":[],"message":null,"code":"X"}]`, `s.json:1: $[0].message: want a string, got null`},
	{"throw: accepted not a boolean", `[{"kind":"throw","chunks":[],"message":"m","code":"X","accepted":"yes"}]`, `s.json:1: $[0].accepted: want a boolean, got a string`},
	{"throw: finish in prefix", `[{"kind":"throw","chunks":[` + fin + `],"message":"m","code":"X"}]`, `s.json:1: $[0].chunks[0]: a throw prefix has no finish chunk: the throw itself ends the call`},
	{"throw: readyFile", `[{"kind":"throw","chunks":[],"message":"m","code":"X","readyFile":"r"}]`, `s.json:1: $[0].readyFile: unknown key (allowed: kind, chunks, message, code, accepted)`},
	{"hang: chunks", `[{"kind":"hang","chunks":[]}]`, `s.json:1: $[0].chunks: unknown key (allowed: kind, readyFile)`},
	{"hang: absolute readyFile", `[{"kind":"hang","readyFile":"/tmp/r"}]`, `s.json:1: $[0].readyFile: "/tmp/r" is not a local relative path`},
	{"hang: escaping readyFile", `[{"kind":"hang","readyFile":"../r"}]`, `s.json:1: $[0].readyFile: "../r" is not a local relative path`},
}

func TestDecodeScriptErrors(t *testing.T) {
	for _, tc := range scriptErrors {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeScript(strings.NewReader(tc.in), "s.json")
			if err == nil {
				t.Fatalf("DecodeScript = %v, want an error", got)
			}
			if diff := cmp.Diff("llmreplay: decode script: "+tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLines checks that errors name the line of the element, wherever it
// stands and whatever whitespace precedes it.
func TestLines(t *testing.T) {
	type testCase struct {
		name string
		in   string
		want string
	}
	bad := `{"kind":"hang","x":1}`
	tests := []testCase{
		{"first line", bad, "s.json:1: $.x"},
		{"after blank lines", "\n\n\n" + bad, "s.json:4: $.x"},
		{"value on the line after its key", "{\"kind\":\"hang\",\n\"x\"\n:\n\n1}", "s.json:5: $.x"},
		{"CRLF", "{\"kind\":\"hang\",\r\n\"x\":1}", "s.json:2: $.x"},
		{"newline inside a string before", "{\"kind\":\"hang\",\"readyFile\":\"a\\nb\",\n\"x\":1}", "s.json:2: $.x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, root, err := readDoc(strings.NewReader(tc.in), "s.json")
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.entry(root)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want+":") {
				t.Errorf("error = %v, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestEntryMarshalUnknownKind(t *testing.T) {
	if _, err := json.Marshal(Entry{Kind: "wait"}); err == nil || !strings.Contains(err.Error(), `unknown entry kind "wait"`) {
		t.Errorf("Marshal(kind wait) error = %v, want unknown entry kind", err)
	}
}

func TestScriptUnmarshalJSONError(t *testing.T) {
	var s Script
	err := json.Unmarshal([]byte(`[{"kind":"nope"}]`), &s)
	if err == nil || !strings.Contains(err.Error(), `script:1: $[0].kind: unknown entry kind "nope"`) {
		t.Errorf("error = %v", err)
	}
}

func TestDecodeModel(t *testing.T) {
	stop := Entry{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.Finish, Reason: model.FinishStop}}}
	type testCase struct {
		name string
		in   string
		want ServerConfig
	}
	tests := []testCase{
		{"bare array", `[{"kind":"chunks","chunks":[` + fin + `]}]`, ServerConfig{Primary: Script{stop}}},
		{"primary only", `{"primary":[]}`, ServerConfig{Primary: Script{}}},
		{"children", `{"primary":[],"children":{"call_1":[{"kind":"chunks","chunks":[` + fin + `]}],"call_2":[]}}`,
			ServerConfig{Primary: Script{}, Children: map[string]Script{"call_1": {stop}, "call_2": {}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeModel(strings.NewReader(tc.in), "m.json")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("model (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeModelErrors(t *testing.T) {
	tests := []decodeErrorCase{
		{"scalar", `"x"`, `m.json:1: $: want a model object, got a string`},
		{"missing primary", `{"children":{}}`, `m.json:1: $.primary: missing`},
		{"unknown key", `{"primary":[],"child":{}}`, `m.json:1: $.child: unknown key (allowed: primary, children)`},
		{"children not an object", `{"primary":[],"children":[]}`, `m.json:1: $.children: want a children object, got an array`},
		{"empty child id", `{"primary":[],"children":{"":[]}}`, `m.json:1: $.children.: empty tool call id`},
		{"bad child entry", "{\"primary\":[],\n\"children\":{\"call_1\":[{\"kind\":\"x\"}]}}", `m.json:2: $.children.call_1[0].kind: unknown entry kind "x" (want chunks, throw or hang)`},
		{"bad primary entry", `[{"kind":"hang","readyFile":7}]`, `m.json:1: $[0].readyFile: want a string, got a number`},
		{"bad match", "[\n{\"kind\":\"hang\",\"match\":\"(\"}]", "m.json:2: $[0].match: match \"(\": error parsing regexp: missing closing ): `(`"},
		{"empty match", `[{"kind":"hang","match":""}]`, `m.json:1: $[0].match: empty match: want a regular expression (RE2) that the request body must match`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeModel(strings.NewReader(tc.in), "m.json")
			if err == nil {
				t.Fatal("DecodeModel succeeded, want an error")
			}
			if diff := cmp.Diff("llmreplay: decode model: "+tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
