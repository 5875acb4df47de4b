package normalize

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

const (
	testCwd  = "/tmp/wd"
	testUUID = "0b6f6a3e-1111-4222-8333-944445555666"
	otherID  = "7d1e2c3b-aaaa-4bbb-8ccc-ddddeeeeffff"
)

type textCase struct {
	name    string
	aliases []string
	in      string
	want    string
}

// normText runs one string value through Stdout with a fresh context.
func normText(t *testing.T, aliases []string, in string) string {
	t.Helper()
	return normWith(t, func() *Context { return NewContext(testCwd, aliases...) }, in)
}

// normWith runs one string value through Stdout with a context from
// newContext, and checks that the output normalizes to itself.
func normWith(t *testing.T, newContext func() *Context, in string) string {
	t.Helper()
	line, err := Marshal(map[string]string{"v": in})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Stdout(line, newContext())
	if err != nil {
		t.Fatalf("Stdout(%s): %v", line, err)
	}
	again, err := Stdout(out, newContext())
	if err != nil || string(again) != string(out) {
		t.Errorf("not idempotent: %s became %s (%v)", out, again, err)
	}
	var got map[string]string
	if err := Unmarshal(out, &got); err != nil {
		t.Fatalf("output %s: %v", out, err)
	}
	return got["v"]
}

func TestTextRules(t *testing.T) {
	private := []string{"/private/tmp/wd"}
	for _, tc := range []textCase{
		{name: "whole cwd", in: "/tmp/wd", want: "{{cwd}}"},
		{name: "path below cwd", in: "/tmp/wd/a/b.go", want: "{{cwd}}/a/b.go"},
		{name: "inside text", in: "cd /tmp/wd && ls", want: "cd {{cwd}} && ls"},
		{name: "twice", in: "/tmp/wd:/tmp/wd/bin", want: "{{cwd}}:{{cwd}}/bin"},
		{name: "cwd2 is another path", in: "/tmp/wd2/x", want: "/tmp/wd2/x"},
		{name: "cwd.bak is another path", in: "/tmp/wd.bak", want: "/tmp/wd.bak"},
		{name: "cwd-x is another path", in: "/tmp/wd-x", want: "/tmp/wd-x"},
		{name: "cwd_x is another path", in: "/tmp/wd_x", want: "/tmp/wd_x"},
		{name: "unicode letter continues", in: "/tmp/wdé", want: "/tmp/wdé"},
		{name: "sentence-final dot", in: "I worked in /tmp/wd.", want: "I worked in {{cwd}}."},
		{name: "dot then space", in: "in /tmp/wd. Then", want: "in {{cwd}}. Then"},
		{name: "comma", in: "/tmp/wd, then", want: "{{cwd}}, then"},
		{name: "parenthesis", in: "(/tmp/wd)", want: "({{cwd}})"},
		{name: "colon", in: "/tmp/wd:1:2", want: "{{cwd}}:1:2"},
		{name: "quote", in: `"/tmp/wd"`, want: `"{{cwd}}"`},
		{name: "newline", in: "/tmp/wd\nnext", want: "{{cwd}}\nnext"},
		{name: "file URL", in: "file:///tmp/wd/a.txt", want: "file://{{cwd}}/a.txt"},
		{name: "file URL of cwd2", in: "file:///tmp/wd2/a.txt", want: "file:///tmp/wd2/a.txt"},
		{name: "glued flag", in: "-I/tmp/wd/include", want: "-I{{cwd}}/include"},
		{name: "private alias longest first", aliases: private, in: "/private/tmp/wd/x", want: "{{cwd}}/x"},
		{name: "private alias and cwd", aliases: private, in: "/tmp/wd /private/tmp/wd", want: "{{cwd}} {{cwd}}"},
		{name: "shorter spelling before longer", aliases: private, in: "/tmp/wd/private/tmp/wd", want: "{{cwd}}{{cwd}}"},
		{name: "no alias: prefix stays", in: "/private/tmp/wd/x", want: "/private{{cwd}}/x"},
		{name: "realpath alias", aliases: []string{"/real/wd"}, in: "/real/wd/a and /tmp/wd/b", want: "{{cwd}}/a and {{cwd}}/b"},
		{name: "dot then token continues", in: "/tmp/wd." + testUUID, want: "/tmp/wd.{{id:1}}"},
		{name: "uuid", in: testUUID, want: "{{id:1}}"},
		{name: "uuid upper case", in: strings.ToUpper(testUUID), want: "{{id:1}}"},
		{name: "uuid in text", in: "call_0_" + testUUID + " and " + otherID + " and " + testUUID, want: "call_0_{{id:1}} and {{id:2}} and {{id:1}}"},
		{name: "uuid glued to letters", in: "x" + testUUID, want: "x" + testUUID},
		{name: "uuid glued to digits after", in: testUUID + "7", want: testUUID + "7"},
		{name: "not a uuid", in: "0b6f6a3e-1111-4222-8333-94444555566", want: "0b6f6a3e-1111-4222-8333-94444555566"},
		{name: "timestamp Z", in: "at 2026-11-30T10:19:05Z.", want: "at {{time}}."},
		{name: "timestamp fraction offset", in: "2026-11-30T10:19:05.123456+01:00", want: "{{time}}"},
		{name: "timestamp compact offset", in: "2026-11-30T10:19:05-0500 x", want: "{{time}} x"},
		{name: "timestamp local", in: "(2026-11-30T10:19:05)", want: "({{time}})"},
		{name: "date alone stays", in: "2026-11-30", want: "2026-11-30"},
		{name: "timestamp glued", in: "v2026-11-30T10:19:05Z", want: "v2026-11-30T10:19:05Z"},
		{name: "tokens stay", in: "{{cwd}}/x {{time}} {{id:4}}", want: "{{cwd}}/x {{time}} {{id:4}}"},
		{name: "token in text advances counter", in: "{{id:4}} " + testUUID, want: "{{id:4}} {{id:5}}"},
		{name: "dashes only", in: "--- a - b ---", want: "--- a - b ---"},
		{name: "empty", in: "", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, normText(t, tc.aliases, tc.in)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

type linesCase struct {
	name string
	in   string
	want string
}

func runLines(t *testing.T, fn func([]byte, *Context) ([]byte, error), cases []linesCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fn([]byte(tc.in), NewContext(testCwd, "/private/tmp/wd"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			again, err := fn(got, NewContext(testCwd, "/private/tmp/wd"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), string(again)); diff != "" {
				t.Errorf("not idempotent (-once +twice)\n%s", diff)
			}
		})
	}
}

func TestSessionRules(t *testing.T) {
	runLines(t, Session, []linesCase{{
		name: "header id and times",
		in:   `{"type":"session","version":1,"id":"s-1","createdAt":1764000000000,"cwd":"/private/tmp/wd","delegationDepth":0}`,
		want: `{"createdAt":0,"cwd":"{{cwd}}","delegationDepth":0,"id":"{{session:1}}","type":"session","version":1}` + "\n",
	}, {
		name: "child header",
		in:   `{"type":"session","id":"c","parentSession":"p","spawnedBy":"call_1","origin":"subagent","cwd":"/tmp/wd"}`,
		want: `{"cwd":"{{cwd}}","id":"{{session:1}}","origin":"subagent","parentSession":"{{session:2}}","spawnedBy":"{{toolCall:1}}","type":"session"}` + "\n",
	}, {
		name: "event ids by key",
		in: `{"type":"session","id":"s"}
{"type":"user/message","seq":0,"time":5,"data":{"turn":1,"id":"u1","content":[]}}
{"type":"assistant/chunk","seq":1,"time":6,"data":{"chunk":{"type":"tool-call-delta","index":0,"id":"call_0_a","name":"bash"}}}
{"type":"assistant/message","seq":2,"time":7,"data":{"id":"m2","toolCalls":[{"id":"call_0_a","name":"bash"},{"id":"call_1_b"}]}}
{"type":"tool/call","seq":3,"time":8,"data":{"callId":"call_0_a","id":"not typed"}}
{"type":"approval/asked","seq":4,"time":9,"data":{"callId":"call_1_b","approvalId":"ap"}}
{"type":"subagent/descriptor","seq":5,"time":10,"data":{"childSession":"` + testUUID + `","note":"child ` + testUUID + `"}}`,
		want: `{"id":"{{session:1}}","type":"session"}
{"data":{"content":[],"id":"{{message:1}}","turn":1},"seq":0,"time":0,"type":"user/message"}
{"data":{"chunk":{"id":"{{toolCall:1}}","index":0,"name":"bash","type":"tool-call-delta"}},"seq":1,"time":0,"type":"assistant/chunk"}
{"data":{"id":"{{message:2}}","toolCalls":[{"id":"{{toolCall:1}}","name":"bash"},{"id":"{{toolCall:2}}"}]},"seq":2,"time":0,"type":"assistant/message"}
{"data":{"callId":"{{toolCall:1}}","id":"not typed"},"seq":3,"time":0,"type":"tool/call"}
{"data":{"approvalId":"{{approval:1}}","callId":"{{toolCall:2}}"},"seq":4,"time":0,"type":"approval/asked"}
{"data":{"childSession":"{{session:2}}","note":"child {{session:2}}"},"seq":5,"time":0,"type":"subagent/descriptor"}
`,
	}, {
		name: "existing tokens keep numbers and advance counters",
		in: `{"type":"session","id":"{{session:3}}"}
{"type":"x","seq":0,"time":0,"data":{"sessionId":"new","callId":"{{toolCall:9}}","other":"c"}}
{"type":"x","seq":1,"time":0,"data":{"callId":"c"}}`,
		want: `{"id":"{{session:3}}","type":"session"}
{"data":{"callId":"{{toolCall:9}}","other":"c","sessionId":"{{session:4}}"},"seq":0,"time":0,"type":"x"}
{"data":{"callId":"{{toolCall:10}}"},"seq":1,"time":0,"type":"x"}
`,
	}, {
		name: "known raw value anywhere gets its token",
		in: `{"type":"session","id":"sess-1"}
{"type":"x","seq":0,"time":0,"data":{"text":"sess-1","list":["sess-1"],"sess-1":true}}`,
		want: `{"id":"{{session:1}}","type":"session"}
{"data":{"list":["{{session:1}}"],"text":"{{session:1}}","{{session:1}}":true},"seq":0,"time":0,"type":"x"}
`,
	}, {
		name: "durations and non-number times",
		in: `{"type":"session","id":"s"}
{"type":"tool/result","seq":0,"time":12,"data":{"durationMs":5,"meta":{"duration":1.5,"elapsedMs":3,"createdAt":"2026-11-30T10:19:05Z","time":null}}}`,
		want: `{"id":"{{session:1}}","type":"session"}
{"data":{"durationMs":0,"meta":{"createdAt":"{{time}}","duration":0,"elapsedMs":0,"time":null}},"seq":0,"time":0,"type":"tool/result"}
`,
	}, {
		name: "paths as object keys",
		in: `{"type":"session","id":"s"}
{"type":"x","seq":0,"time":0,"data":{"/tmp/wd/b":1,"/tmp/wd2":2,"/private/tmp/wd/a":3}}`,
		want: `{"id":"{{session:1}}","type":"session"}
{"data":{"/tmp/wd2":2,"{{cwd}}/a":3,"{{cwd}}/b":1},"seq":0,"time":0,"type":"x"}
`,
	}})
}

func TestStdoutRules(t *testing.T) {
	runLines(t, Stdout, []linesCase{{
		name: "agent requests renumbered, client ids kept",
		in: `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":41,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"call_7"}}}
{"jsonrpc":"2.0","id":"abc","method":"fs/read_text_file","params":{"path":"/tmp/wd/a"}}
{"jsonrpc":"2.0","id":41,"error":{"code":-32603,"message":"x"}}
{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"abc"}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}
{"jsonrpc":"2.0","id":"{{agentRpc:5}}","method":"terminal/create"}
{"jsonrpc":"2.0","id":42,"method":"terminal/output"}`,
		want: `{"id":0,"jsonrpc":"2.0","result":{"protocolVersion":1}}
{"id":"{{agentRpc:1}}","jsonrpc":"2.0","method":"session/request_permission","params":{"sessionId":"{{session:1}}","toolCall":{"toolCallId":"{{toolCall:1}}"}}}
{"id":"{{agentRpc:2}}","jsonrpc":"2.0","method":"fs/read_text_file","params":{"path":"{{cwd}}/a"}}
{"error":{"code":-32603,"message":"x"},"id":41,"jsonrpc":"2.0"}
{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"{{agentRpc:2}}"}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session:1}}"}}
{"id":"{{agentRpc:5}}","jsonrpc":"2.0","method":"terminal/create"}
{"id":"{{agentRpc:6}}","jsonrpc":"2.0","method":"terminal/output"}
`,
	}, {
		name: "number and string ids are different requests",
		in: `{"id":1,"method":"a"}
{"id":"1","method":"b"}
{"id":1,"method":"c"}`,
		want: `{"id":"{{agentRpc:1}}","method":"a"}
{"id":"{{agentRpc:2}}","method":"b"}
{"id":"{{agentRpc:1}}","method":"c"}
`,
	}, {
		name: "canonical encoding",
		in:   ` { "b" : 1.50e+3 , "a" : [ true , null , -0 ], "h": "<&>", "u": "\u00e9\u2028\ud83d\ude00\ud800", "c": "\u0001\b\f\/" } `,
		want: `{"a":[true,null,-0],"b":1.50e+3,"c":"\u0001\b\f/","h":"<&>","u":"é\u2028😀�"}` + "\n",
	}, {
		name: "invalid utf-8 becomes replacement",
		in:   "{\"a\":\"x\xffy\"}",
		want: "{\"a\":\"x\uFFFDy\"}\n",
	}, {
		name: "non-objects",
		in:   "[1,\"/tmp/wd\"]\n\"x\"\n3",
		want: "[1,\"{{cwd}}\"]\n\"x\"\n3\n",
	}})
}

func TestContextSharedAcrossFiles(t *testing.T) {
	c := NewContext(testCwd)
	primary := `{"type":"session","id":"P","cwd":"/tmp/wd"}
{"type":"tool/call","seq":0,"time":1,"data":{"callId":"call_task"}}`
	child := `{"type":"session","id":"C","parentSession":"P","spawnedBy":"call_task","cwd":"/tmp/wd"}`
	stdout := `{"method":"session/update","params":{"sessionId":"C","update":{"toolCallId":"call_task"}}}`
	var got []string
	for _, step := range []struct {
		fn func([]byte, *Context) ([]byte, error)
		in string
	}{{Session, primary}, {Session, child}, {Stdout, stdout}} {
		out, err := step.fn([]byte(step.in), c)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(out))
	}
	want := []string{
		`{"cwd":"{{cwd}}","id":"{{session:1}}","type":"session"}
{"data":{"callId":"{{toolCall:1}}"},"seq":0,"time":0,"type":"tool/call"}
`,
		`{"cwd":"{{cwd}}","id":"{{session:2}}","parentSession":"{{session:1}}","spawnedBy":"{{toolCall:1}}","type":"session"}
`,
		`{"method":"session/update","params":{"sessionId":"{{session:2}}","update":{"toolCallId":"{{toolCall:1}}"}}}
`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	long := `{"a":"` + strings.Repeat("x", 300)
	for _, tc := range []struct {
		name string
		fn   func([]byte, *Context) ([]byte, error)
		in   string
		want string
	}{
		{"stdout not JSON", Stdout, "{\"id\":1,\"result\":{}}\nagent says hi\n", `normalize: stdout: line 2: not JSON (offset 0: invalid character 'a' looking for beginning of value): "agent says hi"`},
		{"stdout blank line", Stdout, "{}\n\n{}\n", `normalize: stdout: line 2: not JSON (offset 0: unexpected end of JSON input): ""`},
		{"stdout long line truncated", Stdout, long, `normalize: stdout: line 1: not JSON (offset 5: unterminated string): ` + strconv.Quote(long[:200]+"…")},
		{"stdout trailing data", Stdout, `{} {}`, `normalize: stdout: line 1: not JSON (offset 3: invalid character '{' after top-level value): "{} {}"`},
		{"session bad event", Session, "{\"type\":\"session\"}\n{\"type\":\"x\",}\n", `normalize: session: line 2: offset 12: looking for beginning of object key string`},
		{"session bad number", Session, `{"a":01}`, `normalize: session: line 1: offset 5: number with a leading zero`},
		{"session repeated key", Session, `{"type":"x","data":{"a":1,"a":2}}`, `normalize: session: line 1: offset 26: duplicate key "a"`},
		{"stdout repeated key", Stdout, `{"id":1,"id":2}`, `normalize: stdout: line 1: not JSON (offset 8: duplicate key "id"): "{\"id\":1,\"id\":2}"`},
		{"payload repeated key", Payload, `{"a":1,"b":{},"a":1}`, `normalize: payload: offset 14: duplicate key "a"`},
		{"payload at the depth cap", Payload, strings.Repeat("[", strictjson.MaxDepth) + strings.Repeat("]", strictjson.MaxDepth) + "x", `normalize: payload: offset 2000: invalid character 'x' after top-level value`},
		{"payload nested too deep", Payload, strings.Repeat("[", strictjson.MaxDepth+1) + strings.Repeat("]", strictjson.MaxDepth+1), `normalize: payload: offset 1000: nested deeper than 1000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.fn([]byte(tc.in), nil)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestFixtureContext(t *testing.T) {
	for _, tc := range []struct {
		name    string
		header  string
		want    *Context
		wantErr string
	}{
		{name: "normalized", header: `{"type":"session","cwd":"{{cwd}}"}` + "\n{\"type\":\"x\"}\n", want: &Context{Cwd: "{{cwd}}"}},
		{name: "stale raw cwd", header: `{"type":"session","cwd":"/var/folders/x"}`, want: &Context{Cwd: "/var/folders/x", Aliases: []string{"/private/var/folders/x"}}},
		{name: "no cwd", header: `{"type":"session"}`, wantErr: "normalize: fixture header: no cwd"},
		{name: "not JSON", header: `nope`, wantErr: "normalize: fixture header: invalid character 'o' in literal null (expecting 'u')"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FixtureContext([]byte(tc.header))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b *Context) bool {
				return a.Cwd == b.Cwd && cmp.Equal(a.Aliases, b.Aliases)
			})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestFixtureContextSide(t *testing.T) {
	for _, tc := range []linesCase{{
		name: "stale raw cwd is scrubbed",
		in: `{"type":"session","id":"{{session:1}}","cwd":"/old/run/wd"}
{"type":"x","seq":0,"time":0,"data":{"path":"/private/old/run/wd/a"}}
`,
		want: `{"cwd":"{{cwd}}","id":"{{session:1}}","type":"session"}
{"data":{"path":"{{cwd}}/a"},"seq":0,"time":0,"type":"x"}
`,
	}, {
		name: "path tokens stay",
		in: `{"cwd":"{{cwd}}","id":"{{session:1}}","type":"session"}
{"data":{"home":"{{home}}","text":"ls {{home}}/.cache {{root}}/.. {{cwd}}/..","{{root}}/x":1},"seq":0,"time":0,"type":"x"}
`,
		want: `{"cwd":"{{cwd}}","id":"{{session:1}}","type":"session"}
{"data":{"home":"{{home}}","text":"ls {{home}}/.cache {{root}}/.. {{cwd}}/..","{{root}}/x":1},"seq":0,"time":0,"type":"x"}
`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := FixtureContext([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Session([]byte(tc.in), c)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestAliases(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(real, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	want := []string{"/private" + link, real, "/private" + real}
	if diff := cmp.Diff(want, Aliases(link+"/")); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/tmp/x"}, Aliases("/private/tmp/x")); diff != "" {
		t.Errorf("missing dir (-want +got)\n%s", diff)
	}
}

func TestNoCwdScrubbing(t *testing.T) {
	for _, cwd := range []string{"", "/", ".", "rel/dir"} {
		out, err := Stdout([]byte(`{"a":"/x rel/dir /"}`), NewContext(cwd))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(`{"a":"/x rel/dir /"}`+"\n", string(out)); diff != "" {
			t.Errorf("cwd %q (-want +got)\n%s", cwd, diff)
		}
	}
}

// TestProvisional: values numbered provisionally take no numbers from the
// counters; Renumber gives one the token it has in a recording, Settle the
// next number; each refuses what would give a token two values.
func TestProvisional(t *testing.T) {
	const a, b, c = "0b0b7d4e-6a51-4f0e-9a55-0a6f1f6a1111", "9f1c2d3e-4b5a-4c6d-8e7f-222222222222", "5a5a5a5a-0000-4000-8000-333333333333"
	ctx := NewContext("/w")
	ctx.Provisional(true)
	got, err := Request([]byte(`{"a":"`+a+`","b":"`+b+`"}`), ctx)
	ctx.Provisional(false)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"{{id:900000001}}","b":"{{id:900000002}}"}`; string(got) != want {
		t.Fatalf("provisional: %s, want %s", got, want)
	}
	if err := ctx.Renumber("{{id:900000002}}", "{{id:1}}"); err != nil {
		t.Fatal(err)
	}
	if v, _ := ctx.Value("{{id:900000002}}"); v != b {
		t.Errorf("the renumbered token reads %q, want %q", v, b)
	}
	for _, bad := range [][2]string{
		{"{{id:900000001}}", "{{id:1}}"},       // another value's token
		{"{{id:900000002}}", "{{id:3}}"},       // renumbered to {{id:1}} already
		{"{{id:2}}", "{{id:4}}"},               // not provisional
		{"{{id:900000001}}", "{{toolCall:2}}"}, // another kind
		{"{{id:900000009}}", "{{id:5}}"},       // stands for nothing
	} {
		if err := ctx.Renumber(bad[0], bad[1]); err == nil {
			t.Errorf("Renumber(%s, %s) succeeded", bad[0], bad[1])
		}
	}
	if err := ctx.Renumber("{{id:900000002}}", "{{id:1}}"); err != nil {
		t.Errorf("renumbering again to the same token: %v", err)
	}
	if tok, err := ctx.Settle("{{id:900000001}}"); err != nil || tok != "{{id:2}}" {
		t.Errorf("Settle = %s, %v; want {{id:2}}", tok, err)
	}
	if got, _ := Request([]byte(`{"a":"`+a+`","b":"`+b+`","c":"`+c+`"}`), ctx); string(got) != `{"a":"{{id:2}}","b":"{{id:1}}","c":"{{id:3}}"}` {
		t.Errorf("after renumbering: %s", got)
	}
}
