package strictjson

import (
	"cmp"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestReadErrors(t *testing.T) {
	type testCase struct {
		name, in, want string
	}
	for _, tc := range []testCase{
		{"empty", "", "f.json:1: $: invalid JSON: unexpected end of JSON input"},
		{"syntax", "{\n\"a\": }", "f.json:2: $: invalid JSON: invalid character '}' looking for beginning of value"},
		{"duplicate top", "{\"a\":1,\n\"a\":2}", "f.json:2: $.a: duplicate key"},
		{"duplicate deep", "{\"a\":[{},\n{\"b\":{\"c\":1,\n\"c\":2}}]}", "f.json:3: $.a[1].b.c: duplicate key"},
		{"two values", "{} {}", "f.json:1: $: invalid JSON: invalid character '{' after top-level value"},
		{"at the depth cap", "[\n" + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth), ""},
		{"one past the depth cap", "{\"steps\":\n" + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + "}",
			"f.json:2: $.steps[0][0][0][0][0][0][0]…: nested deeper than 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Read(strings.NewReader(tc.in), "f.json")
			if fmt.Sprint(err) != cmp.Or(tc.want, "<nil>") {
				t.Fatalf("error = %v, want %s", err, cmp.Or(tc.want, "<nil>"))
			}
		})
	}
}

func TestPathPositions(t *testing.T) {
	d, root, err := Read(strings.NewReader("{\n  \"steps\": [\n    {\"op\": \"x\"},\n    {\"op\": 1}\n  ]\n}"), "input.json")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.PathErrorf("$.steps[1].op", "want a string").Error(), "input.json:4: $.steps[1].op: want a string"; got != want {
		t.Errorf("PathErrorf = %q, want %q", got, want)
	}
	m, err := d.Members(root, "an input")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CheckMembers(root, m, []string{"steps", "permissionAnswers"}, nil); err == nil || !strings.Contains(err.Error(), "$.permissionAnswers: missing") {
		t.Errorf("CheckMembers = %v", err)
	}
}

// TestDeepDocumentStaysSmall: the place of a value deep in a document is
// found without a path string per level (an input.json nested 9,990 deep
// took verify to 4.4 GB): naming the deepest value of a document nested
// just under the cap allocates about what the document holds, not the
// square of its depth.
func TestDeepDocumentStaysSmall(t *testing.T) {
	const depth = MaxDepth - 1
	doc := []byte(strings.Repeat("{\"a\":\n", depth) + "true" + strings.Repeat("}", depth))
	deepest := "$" + strings.Repeat(".a", depth)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, _, err := Parse(doc, "input.json", 0, "$")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Line(d.At(deepest)), depth; got != want {
		t.Fatalf("line of %.20s… = %d, want %d", deepest, got, want)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 512<<10 {
		t.Errorf("Parse and At of a document %d deep (%d bytes) allocated %d bytes, want at most 512 KiB", depth, len(doc), n)
	}
}

// TestFormatExamples: the errors docs/format.md ("JSON") shows.
func TestFormatExamples(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\"steps\": [{\"op\": \"initialize\"},\n  {\"op\": \"prompt\",\n   \"text\": \"a\", \"text\": \"b\"}]}", "input.json:3: $.steps[1].text: duplicate key"},
		{"{\"steps\":\n" + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + "}", "input.json:2: $.steps[0][0][0][0][0][0][0]…: nested deeper than 1000"},
	} {
		if _, _, err := Read(strings.NewReader(tc.in), "input.json"); fmt.Sprint(err) != tc.want {
			t.Errorf("error = %v, want %s", err, tc.want)
		}
	}
}
