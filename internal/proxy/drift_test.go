package proxy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiffJSON: the changes a drift lists are readable: an element
// removed from an array is one change (elements are aligned by content),
// and a long string shows its changed words, not a shared prefix.
func TestDiffJSON(t *testing.T) {
	type testCase struct {
		name      string
		rec, live string
		want      []Change
	}
	prompt := "You are a coding agent. " + strings.Repeat("Read files before you edit them. ", 20) + "Be careful with the shell."
	tool := func(name string) string {
		return `{"type":"function","function":{"name":"` + name + `","parameters":{}}}`
	}
	for _, tc := range []testCase{
		{name: "short string whole", rec: `{"a":"Say hello."}`, live: `{"a":"Say goodbye."}`,
			want: []Change{{"$.a", `"Say hello."`, `"Say goodbye."`}}},
		{name: "long string as changed words",
			rec: `{"system":` + quote(prompt) + `}`, live: `{"system":` + quote(strings.Replace(prompt, "careful", "careless", 1)) + `}`,
			want: []Change{{"$.system", `"…672 bytes unchanged… edit them. Be [-careful-] with the shell."`, `"…672 bytes unchanged… edit them. Be {+careless+} with the shell."`}}},
		{name: "one tool removed is one change",
			rec:  `{"tools":[` + tool("read") + `,` + tool("write") + `,` + tool("bash") + `,` + tool("grep") + `]}`,
			live: `{"tools":[` + tool("read") + `,` + tool("bash") + `,` + tool("grep") + `]}`,
			want: []Change{{"$.tools[1]", `{"function":{"name":"write","parameters":{}},"type":"function"}`, "(absent)"}}},
		{name: "one removed, one added: two changes, the rest aligned",
			rec: `{"m":["x","y","z"]}`, live: `{"m":["x","z","w"]}`,
			want: []Change{{"$.m[1]", `"y"`, "(absent)"}, {"$.m[2]", "(absent)", `"w"`}}},
		{name: "a replaced element compared member by member",
			rec:  `{"m":[{"role":"user","content":"hi"},{"role":"assistant","content":"ok"}]}`,
			live: `{"m":[{"role":"user","content":"hey"},{"role":"assistant","content":"ok"}]}`,
			want: []Change{{"$.m[0].content", `"hi"`, `"hey"`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec, live any
			if err := json.Unmarshal([]byte(tc.rec), &rec); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.live), &live); err != nil {
				t.Fatal(err)
			}
			var got []Change
			diffJSON("$", rec, live, &got)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("diffJSON (-want +got):\n%s", d)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
