package jsonpos

import (
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Read(strings.NewReader(tc.in), "f.json")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %s", err, tc.want)
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
