package sessionlog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// plainEvent must decode exactly what strictUnmarshal decodes, whenever it
// decodes at all, on every line Read gives it (valid, no repeated key).
func samePlain(t *testing.T, line []byte) {
	t.Helper()
	var fast, slow Event
	if !json.Valid(line) || strictjson.Check(line, "$") != nil {
		return // Read refuses the line before
	}
	if !plainEvent(line, &fast) {
		return // Read resets the event and asks strictUnmarshal
	}
	if err := strictUnmarshal(line, &slow); err != nil {
		t.Fatalf("%q: plainEvent accepted what strictUnmarshal refuses: %v", line, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q: plainEvent = %+v, strictUnmarshal = %+v", line, fast, slow)
	}
}

var plainSeeds = []string{
	`{"type":"a","seq":1,"time":2,"data":{"x":[1,"}"]}}`, ` { "data" : [] , "type" : "t" } `, `{}`,
	`{"type":"a","type":"b"}`, `{"Type":"a"}`, `{"type":"a\u0062"}`, `{"type":1}`, `{"seq":1.0}`, `{"seq":1e2}`,
	`{"seq":-0}`, `{"seq":99999999999999999999}`, `{"data":null}`, `{"data":"s"}`, `{"extra":1}`, `{"type":"a"} x`,
	`{"type":"é"}`, `[]`, `{"time":-5,"seq":0}`,
}

func TestPlainEventAgreesWithStrictUnmarshal(t *testing.T) {
	for _, s := range plainSeeds {
		samePlain(t, []byte(s))
	}
	hits := 0
	files, _ := filepath.Glob("../snapshots/*/session*.jsonl")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if i == 0 {
				continue
			}
			samePlain(t, line)
			if json.Valid(line) && plainEvent(line, &Event{}) {
				hits++
			}
		}
	}
	if len(files) > 0 && hits == 0 {
		t.Error("plainEvent decoded no event line of the corpus: the fast path is dead")
	}
}

func FuzzPlainEvent(f *testing.F) {
	for _, s := range plainSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { samePlain(t, line) })
}
