package replay

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOverrideApply(t *testing.T) {
	a, b := stopEntry("a"), stopEntry("b")
	hang := Entry{Kind: KindHang, ReadyFile: "ready"}
	type testCase struct {
		name string
		in   string
		want Script
	}
	tests := []testCase{
		{"bare array replaces", `[{"kind":"hang","readyFile":"ready"}]`, Script{hang}},
		{"empty bare array empties", `[]`, Script{}},
		{"no patches", `{"patches":[]}`, Script{a, b}},
		{"replace", `{"patches":[{"at":1,"entry":{"kind":"hang","readyFile":"ready"}}]}`, Script{a, hang}},
		{"append", `{"patches":[{"at":2,"entry":{"kind":"hang","readyFile":"ready"}}]}`, Script{a, b, hang}},
		{"in order: append then replace the appended", `{"patches":[{"at":2,"entry":{"kind":"hang"}},{"at":2,"entry":{"kind":"hang","readyFile":"ready"}},{"at":0,"entry":{"kind":"hang","readyFile":"ready"}}]}`,
			Script{hang, b, hang}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := DecodeOverride(strings.NewReader(tc.in), "o.json")
			if err != nil {
				t.Fatal(err)
			}
			base := Script{a, b}
			got, err := o.Apply(base)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(Script{a, b}, base); diff != "" {
				t.Errorf("Apply changed its input (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOverrideApplyErrors(t *testing.T) {
	type testCase struct {
		name string
		o    *Override
		want string
	}
	decoded, err := DecodeOverride(strings.NewReader("{\"patches\":[\n{\"at\":2,\"entry\":{\"kind\":\"hang\"}},\n{\"at\":4,\"entry\":{\"kind\":\"hang\"}}]}"), "o.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []testCase{
		{"decoded names file and line", decoded, `llmreplay: apply override: o.json:3: $.patches[1]: at 4 is past the end of the script (3 entries; at 3 appends)`},
		{"built in Go names the patch", &Override{Patches: []Patch{{At: -1}}}, `llmreplay: apply override: patch 0: at -1 is past the end of the script (2 entries; at 2 appends)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.o.Apply(Script{stopEntry("a"), stopEntry("b")})
			if err == nil {
				t.Fatal("Apply succeeded, want an error")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// matchRefused is why an override entry may not say which request it
// answers.
const matchRefused = "match is for a model file (model.json, which the scripted server serves): replay answers each call with its recorded one (by fingerprint over HTTP; natively in the order of its session, whose calls never overlap)"

func TestDecodeOverrideErrors(t *testing.T) {
	tests := []decodeErrorCase{
		{"scalar", `1`, `o.json:1: $: want an override (a bare array of entries or a patches) object, got a number`},
		{"missing patches", `{}`, `o.json:1: $.patches: missing`},
		{"unknown key", `{"patches":[],"replace":[]}`, `o.json:1: $.replace: unknown key (allowed: patches)`},
		{"patches not an array", `{"patches":{}}`, `o.json:1: $.patches: want an array of patches, got an object`},
		{"patch not an object", `{"patches":[[]]}`, `o.json:1: $.patches[0]: want a patch object, got an array`},
		{"missing entry", `{"patches":[{"at":0}]}`, `o.json:1: $.patches[0].entry: missing`},
		{"unknown patch key", `{"patches":[{"at":0,"entry":{"kind":"hang"},"why":"x"}]}`, `o.json:1: $.patches[0].why: unknown key (allowed: at, entry)`},
		{"negative at", `{"patches":[{"at":-1,"entry":{"kind":"hang"}}]}`, `o.json:1: $.patches[0].at: -1: entries count from 0`},
		{"fractional at", `{"patches":[{"at":1.5,"entry":{"kind":"hang"}}]}`, `o.json:1: $.patches[0].at: want an integer, got 1.5`},
		{"bad entry", "{\"patches\":[\n  {\"at\":0,\"entry\":{\"kind\":\"chunks\",\"chunks\":[\n    {\"type\":\"text-delt\"}]}}]}", `o.json:3: $.patches[0].entry.chunks[0].type: unknown chunk "text-delt"`},
		{"match in a patch", "{\"patches\":[\n  {\"at\":0,\"entry\":{\"kind\":\"hang\",\"match\":\"Title\"}}]}", `o.json:2: $.patches[0].entry.match: ` + matchRefused},
		{"match in a bare entry", `[{"kind":"hang","match":"Title"}]`, `o.json:1: $[0].match: ` + matchRefused},
		{"bad bare entry", "[\n{\"kind\":\"hang\"},\n{\"kind\":\"hang\"},\n{\"kind\":\"chunks\",\"chunks\":[{\"type\":\"text-delt\"}]}]", `o.json:4: $[2].chunks[0].type: unknown chunk "text-delt"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeOverride(strings.NewReader(tc.in), "o.json")
			if err == nil {
				t.Fatal("DecodeOverride succeeded, want an error")
			}
			if diff := cmp.Diff("llmreplay: decode override: "+tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
