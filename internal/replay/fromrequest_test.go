package replay

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ExampleExpand() {
	request := []byte(`{"messages":[{"role":"user","content":"write notes-7f3a.md"}]}`)
	text, err := ExpandPlaceholders(`{"path":"{{fromRequest:(notes-[0-9a-f]+\.md)}}"}`, request)
	fmt.Println(text, err)
	// Output: {"path":"notes-7f3a.md"} <nil>
}

func ExampleFind() {
	toks, _ := FindPlaceholders(`a {{fromRequest:x{2}}} b {{fromRequest:\}(y)}}`)
	for _, t := range toks {
		fmt.Printf("%q [%d,%d)\n", t.Regex, t.Start, t.End)
	}
	// Output:
	// "x{2}" [2,22)
	// "\\}(y)" [25,46)
}

func TestFind(t *testing.T) {
	type tcase struct {
		name string
		text string
		want []string // regexes
		err  string
	}
	for _, tc := range []tcase{
		{name: "none", text: "plain {{cwd}} text", want: nil},
		{name: "simple", text: "{{fromRequest:(a)}}", want: []string{"(a)"}},
		{name: "quantifier brace", text: "{{fromRequest:a{2}}}", want: []string{"a{2}"}},
		{name: "single brace inside", text: "{{fromRequest:x{1,3}y(z)}}", want: []string{"x{1,3}y(z)"}},
		{name: "escaped brace", text: `{{fromRequest:\}\}(a)}}`, want: []string{`\}\}(a)`}},
		{name: "escaped then closer", text: `{{fromRequest:a\}}}`, want: []string{`a\}`}},
		{name: "long run", text: "{{fromRequest:(b{3})}}}", want: []string{"(b{3})}"}},
		{name: "two", text: "{{fromRequest:(a)}}-{{fromRequest:(b)}}", want: []string{"(a)", "(b)"}},
		{name: "empty regex", text: "{{fromRequest:}}", want: []string{""}},
		{name: "unterminated", text: "x {{fromRequest:(a)}", err: `fromrequest: offset 2: {{fromRequest:"(a)}": no closing "}}"`},
		{name: "trailing backslash", text: `{{fromRequest:(a)\`, err: `no closing "}}"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toks, err := FindPlaceholders(tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrUnclosedPlaceholder) {
					t.Fatalf("Find(%q) error = %v, want one containing %q", tc.text, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tk := range toks {
				got = append(got, tk.Regex)
				if !strings.HasPrefix(tc.text[tk.Start:], PlaceholderOpener) || !strings.HasSuffix(tc.text[:tk.End], "}}") {
					t.Errorf("span [%d,%d) of %q is not a whole token", tk.Start, tk.End, tc.text)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Find(%q) regexes (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	request := []byte("{\"model\":\"m\",\"nonce\":\"n-42\",\"path\":\"out/report.txt\"}\r\n")
	type tcase struct {
		name string
		text string
		want string
		err  []string // substrings of the error
	}
	for _, tc := range []tcase{
		{name: "no tokens", text: `{"text":"hi"}`, want: `{"text":"hi"}`},
		{name: "one", text: `nonce={{fromRequest:"nonce":"([^"]+)"}}.`, want: "nonce=n-42."},
		{name: "two", text: `{{fromRequest:"path":"([^"/]+)/}}|{{fromRequest:report\.(\w+)}}`, want: "out|txt"},
		{name: "first group only", text: `{{fromRequest:"(model)":"(m)"}}`, want: "model"},
		{name: "no reinjection", text: `{{fromRequest:(\{\{fromRequest:x)}}`, err: []string{"no match"}},
		{name: "bad regex", text: `{{fromRequest:([a-}}`, err: []string{"{{fromRequest:([a-}}", "missing closing ]"}},
		{name: "no group", text: `{{fromRequest:nonce}}`, err: []string{"{{fromRequest:nonce}}: the regex has no capture group"}},
		{name: "no match", text: `ok {{fromRequest:"absent":"(.*)"}}`, err: []string{
			`fromrequest: offset 3: {{fromRequest:"absent":"(.*)"}}: no match in the request (54 bytes: `,
			`\r\n`,
		}},
		{name: "group unused", text: `{{fromRequest:nonce|(absent)}}`, err: []string{"group 1 took no part"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExpandPlaceholders(tc.text, request)
			if tc.err != nil {
				if err == nil {
					t.Fatalf("Expand(%q) = %q, want an error", tc.text, got)
				}
				for _, s := range tc.err {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("Expand(%q) error = %v, want it to contain %q", tc.text, err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Expand(%q) (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestMatchExcerptBounded(t *testing.T) {
	request := []byte(strings.Repeat("é\x00", 500))
	_, err := MatchPlaceholder("(zzz)", request)
	if err == nil {
		t.Fatal("want no-match error")
	}
	msg := err.Error()
	if len(msg) > 400 || !strings.Contains(msg, `\x00`) || !strings.Contains(msg, "(1500 bytes: ") || !strings.HasSuffix(msg, "…)") {
		t.Errorf("error not a short quoted excerpt (%d bytes): %s", len(msg), msg)
	}
}

func FuzzFind(f *testing.F) {
	for _, s := range []string{"{{fromRequest:(a)}}", "{{fromRequest:a{2}}}", `{{fromRequest:\}}}`, "{{fromRequest:", "x{{fromRequest:}}}}}y"} {
		f.Add(s, []byte(`{"a":"b"}`))
	}
	f.Fuzz(func(t *testing.T, text string, request []byte) {
		toks, err := FindPlaceholders(text)
		prev := 0
		for _, tk := range toks {
			if tk.Start < prev || tk.End > len(text) || text[tk.Start:tk.End] != PlaceholderOpener+tk.Regex+"}}" {
				t.Fatalf("bad token %+v in %q", tk, text)
			}
			prev = tk.End
		}
		out, xerr := ExpandPlaceholders(text, request)
		if err == nil && len(toks) == 0 && (xerr != nil || out != text) {
			t.Fatalf("text without tokens changed: %q -> %q, %v", text, out, xerr)
		}
		if err != nil && xerr == nil {
			t.Fatalf("Find failed (%v) but ExpandPlaceholders did not", err)
		}
	})
}
