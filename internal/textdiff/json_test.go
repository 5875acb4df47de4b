package textdiff

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/google/go-cmp/cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite internal/textdiff/testdata/*.golden")

func ExampleLines() {
	want := `{"type":"tool/result","data":{"id":"t1","ok":true,"text":"wrote notes.md\r\n"}}`
	got := `{"type":"tool/result","data":{"id":"t1","ok":false,"text":"wrote notes.md\n","error":"denied"}}`
	fmt.Print(JSONLines(want, got, Config{}))
	// Output:
	// ~ json: 3 changed paths, 55 bytes unchanged
	// ~ $.data.error
	// +   "denied"
	// ~ $.data.ok
	// -   true
	// +   false
	// ~ $.data.text
	// -   "wrote notes.md\r\n"
	// +   "wrote notes.md\n"
}

func ExampleUnified() {
	diff := "--- want\n+++ got\n@@ -1,2 +1,2 @@\n {\"seq\":0}\n-{\"seq\":1,\"text\":\"the quick brown fox jumps over the lazy dog, twice\"}\n+{\"seq\":1,\"text\":\"the quick brown cat jumps over the lazy dog, twice\"}\n"
	fmt.Print(JSONUnified(diff, Config{Context: 2}))
	// Output:
	// --- want
	// +++ got
	// @@ -1,2 +1,2 @@
	//  {"seq":0}
	// ~ json: 1 changed path, 66 bytes unchanged
	// ~ $.text
	// -   "the quick brown [-fox-] jumps over the lazy dog, twice"
	// +   "the quick brown {+cat+} jumps over the lazy dog, twice"
}

func TestLines(t *testing.T) {
	long := strings.Repeat("word ", 40)
	type tcase struct {
		name      string
		want, got string
		cfg       Config
		out       string
	}
	for _, tc := range []tcase{
		{name: "equal", want: `{"a":1}`, got: `{"a":1}`, out: ""},
		{name: "scalar", want: `{"a":1,"b":"x"}`, got: `{"a":2,"b":"x"}`,
			out: "~ json: 1 changed path, 14 bytes unchanged\n~ $.a\n-   1\n+   2\n"},
		{name: "odd key and removed", want: `{"a b":[1,2],"c":{"d":null}}`, got: `{"a b":[1,2,3]}`,
			out: "~ json: 2 changed paths, 18 bytes unchanged\n~ $[\"a b\"][2]\n+   3\n~ $.c\n-   {\"d\":null}\n"},
		{name: "inserted element aligned", want: `{"l":[{"n":1},{"n":2}]}`, got: `{"l":[{"n":0},{"n":1},{"n":2}]}`,
			out: "~ json: 1 changed path, 23 bytes unchanged\n~ $.l[0]\n+   {\"n\":0}\n"},
		{name: "moved element changed", want: `{"l":[1,{"n":1},{"x":2}]}`, got: `{"l":[{"n":1},{"x":3}]}`,
			out: "~ json: 2 changed paths, 23 bytes unchanged\n~ $.l[0]\n-   1\n~ $.l[2→1].x\n-   2\n+   3\n"},
		{name: "type change", want: `{"a":"1"}`, got: `{"a":1}`,
			out: "~ json: 1 changed path, 6 bytes unchanged\n~ $.a\n-   \"1\"\n+   1\n"},
		{name: "key order only", want: `{"a":1,"b":2}`, got: `{"b":2,"a":1}`,
			out: "-{\"[-a-]\":[-1-],\"[-b-]\":[-2-]}\n+{\"{+b+}\":{+2+},\"{+a+}\":{+1+}}\n"},
		{name: "not json", want: "ok\ttext", got: "ok text", out: "-ok[-␉-]text\n+ok{+ +}text\n"},
		{name: "invisible in string", want: `{"s":"a` + "\u200b" + `b"}`, got: `{"s":"ab"}`,
			out: "~ json: 1 changed path, 6 bytes unchanged\n~ $.s\n-   \"a\\u200bb\"\n+   \"ab\"\n"},
		{name: "long value elided", want: `{"v":"` + long + `"}`, got: `{"v":"` + long + `!"}`, cfg: Config{Context: 2},
			out: "~ json: 1 changed path, 208 bytes unchanged\n~ $.v\n-   \"…189 bytes unchanged… word word \"\n+   \"…189 bytes unchanged… word word {+!+}\"\n"},
		{name: "color", want: `{"v":"the quick brown fox jumps over the lazy dog"}`, got: `{"v":"the quick brown cat jumps over the lazy dog"}`, cfg: Config{Color: true, Context: 3},
			out: cyan + "~ json: 1 changed path, 48 bytes unchanged" + reset + "\n" + cyan + "~ $.v" + reset + "\n" +
				red + "-   \"the quick brown " + reverse + "fox" + noRev + " jumps over the lazy dog\"" + reset + "\n" +
				green + "+   \"the quick brown " + reverse + "cat" + noRev + " jumps over the lazy dog\"" + reset + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.out, JSONLines(tc.want, tc.got, tc.cfg)); diff != "" {
				t.Errorf("JSONLines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCap(t *testing.T) {
	w, g := `{"a":{`, `{"a":{`
	for i := range 200 {
		w += fmt.Sprintf(`"k%03d":%d,`, i, i)
		g += fmt.Sprintf(`"k%03d":%d,`, i, i+1)
	}
	w, g = strings.TrimSuffix(w, ",")+"}}", strings.TrimSuffix(g, ",")+"}}"
	out := JSONLines(w, g, Config{MaxBytes: 500})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	note := lines[len(lines)-1]
	if len(out)-len(note) > 501 {
		t.Errorf("output %d bytes before the note, cap 500", len(out)-len(note))
	}
	if diff := cmp.Diff("… 544 more lines (4,733 bytes) left out: the diff is capped at 500 bytes", note); diff != "" {
		t.Errorf("note (-want +got):\n%s", diff)
	}
	if out := JSONLines(`{"a":1}`, `{"a":2}`, Config{MaxBytes: 10}); out != "~ json: 1 \n… 3 more lines (50 bytes) left out: the diff is capped at 10 bytes\n" {
		t.Errorf("first line longer than the cap: %q", out)
	}
}

// oneWord changes one word of one tool description in a real request/header
// line, keeping every other byte; it returns the new line and the path.
func oneWord(t *testing.T, line string, tool int) (string, string) {
	t.Helper()
	var h struct {
		Data struct {
			Tools []struct{ Description string } `json:"tools"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(line), &h); err != nil {
		t.Fatal(err)
	}
	tool %= len(h.Data.Tools)
	desc := h.Data.Tools[tool].Description
	words := strings.Fields(desc)
	changed := strings.Replace(desc, " "+words[len(words)/2]+" ", " renamed ", 1)
	oldJSON, _ := json.Marshal(desc)
	newJSON, _ := json.Marshal(changed)
	if changed == desc || strings.Count(line, string(oldJSON)) != 1 {
		t.Fatalf("cannot change one word of tool %d in %.60s…", tool, line)
	}
	return strings.Replace(line, string(oldJSON), string(newJSON), 1), fmt.Sprintf("$.data.tools[%d].description", tool)
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go test ./internal/textdiff -run %s -update)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s\naccept with: go test ./internal/textdiff -run '%s' -update", path, diff, t.Name())
	}
}

// TestCorpusHeaders is the newcomer's case on every distinct request/header
// line of the corpus (testdata/headers.jsonl, copied from the scenarios'
// session.jsonl): one word of one tool description changed must render in
// under 1 KB and name the description's path.
func TestCorpusHeaders(t *testing.T) {
	var all strings.Builder
	for i, line := range readLines(t, "headers.jsonl") {
		got, path := oneWord(t, line, i)
		out := JSONLines(line, got, Config{})
		if len(out) >= 1024 || !strings.Contains(out, "~ "+path+"\n") {
			t.Errorf("header %d: %d bytes, want < 1024 naming %s:\n%s", i, len(out), path, out)
		}
		fmt.Fprintf(&all, "# header %d (%s bytes)\n%s", i, groupInt(len(line)), out)
	}
	golden(t, "headers.golden", all.String())
}

// TestCorpusSession diffs a whole real session.jsonl whose header has one
// word changed, through the project's line differ, and renders it.
func TestCorpusSession(t *testing.T) {
	lines := readLines(t, "text-turn.session.jsonl")
	changed := append([]string(nil), lines...)
	n := -1
	for i, l := range lines {
		if strings.Contains(l, `"type":"request/header"`) {
			n = i
		}
	}
	if n < 0 {
		t.Fatal("no request/header line")
	}
	var path string
	changed[n], path = oneWord(t, lines[n], 3)
	raw := Unified("want: session.jsonl", "got: session.jsonl", strings.Join(lines, "\n")+"\n", strings.Join(changed, "\n")+"\n")
	for _, color := range []bool{false, true} {
		out := JSONUnified(raw, Config{Color: color})
		if !color && (len(out) >= 1024 || !strings.Contains(out, "~ "+path+"\n")) {
			t.Errorf("%d bytes (the plain diff is %d), want < 1024 naming %s:\n%s", len(out), len(raw), path, out)
		}
		golden(t, fmt.Sprintf("session-color-%v.golden", color), out)
	}
}

func FuzzLines(f *testing.F) {
	lines := readLines(&testing.T{}, "text-turn.session.jsonl")
	for i := 1; i < len(lines); i++ {
		f.Add(lines[i-1], lines[i], uint16(200))
	}
	f.Add(`{"a":[1,{"b":"c\r"}]}`, `{"a":[{"b":"c"},1]}`, uint16(0))
	f.Add("plain\x00", "pla\xffin", uint16(30))
	f.Fuzz(func(t *testing.T, want, got string, max uint16) {
		cfg := Config{MaxBytes: int(max)}
		out := JSONLines(want, got, cfg)
		limit := cfg.withDefaults().MaxBytes + 120 // the closing note
		if len(out) > limit {
			t.Fatalf("%d bytes of output, cap %d", len(out), cfg.withDefaults().MaxBytes)
		}
		if (want == got) != (out == "") {
			t.Fatalf("want==got is %v but output is %q", want == got, out)
		}
		u := JSONUnified("--- a\n+++ b\n@@ -1 +1 @@\n "+want+"\n-"+want+"\n+"+got+"\n", cfg)
		if len(u) > limit {
			t.Fatalf("JSONUnified: %d bytes of output, cap %d", len(u), cfg.withDefaults().MaxBytes)
		}
	})
}

func TestUnifiedPairsByType(t *testing.T) {
	diff := "@@ -1,2 +1,3 @@\n" +
		`-{"seq":1,"type":"text"}` + "\n" +
		`-{"seq":2,"type":"end"}` + "\n" +
		`+{"seq":1,"type":"tool"}` + "\n" +
		`+{"seq":2,"type":"text"}` + "\n" +
		`+{"seq":3,"type":"end"}` + "\n" +
		"-a\tb\n+a b\n"
	want := "@@ -1,2 +1,3 @@\n" +
		`+{"seq":1,"type":"tool"}` + "\n" +
		"~ json: 1 changed path, 22 bytes unchanged\n~ $.seq\n-   1\n+   2\n" +
		"~ json: 1 changed path, 21 bytes unchanged\n~ $.seq\n-   2\n+   3\n" +
		"-a[-␉-]b\n+a{+ +}b\n"
	if diff := cmp.Diff(want, JSONUnified(diff, Config{})); diff != "" {
		t.Errorf("JSONUnified (-want +got):\n%s", diff)
	}
}
