package subagent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzParse feeds the loader damaged cassettes: it never panics, and what
// it accepts is consistent (admission order, unique keys, a self-diff
// without changes, a player that can serve every call).
func FuzzParse(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.cassette.jsonl")
	r, err := Record(path, Options{RequestStorage: StorageFull})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	r.Call(ctx, rootParent(), req("outer", "p"), func(ctx context.Context, run *Run) (Result, error) {
		run.Started()
		r.Call(ctx, Parent{Path: run.Key, Depth: 1}, req("inner", "q"), failing("no"))
		return textResult("out"), nil
	})
	r.Call(ctx, rootParent(), req("outer", "p"), returns(textResult("out")))
	if err := r.Close(); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	if ar, err := txtar.ParseFile("../../../cmd/acpsnap/testdata/script/cassette-diff.txtar"); err == nil {
		for _, file := range ar.Files {
			f.Add(file.Data) // the committed cassettes of the CLI script
		}
	}
	f.Add(seed[:len(seed)/2])
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.jsonl")
		if err != nil {
			return
		}
		keys := map[string]bool{}
		for i, it := range c.Interactions {
			if it.Admission != i+1 || keys[it.Key] {
				t.Fatalf("accepted interaction %d: admission %d, key seen %v", i, it.Admission, keys[it.Key])
			}
			keys[it.Key] = true
		}
		if d := Diff(c, c); len(d.Changes) != 0 || len(d.PolicyDrift) != 0 {
			t.Fatalf("a cassette differs from itself: %+v", d)
		}
		s, _ := Options{DuplicatePolicy: PolicySequence, AllowRedactedReplay: true}.settings()
		p, err := newPlayer(c, s)
		if err != nil {
			t.Fatalf("sequence player refused an accepted cassette: %v", err)
		}
		for i := range p.its {
			p.consumed[i] = true
		}
		if len(p.Unconsumed()) != 0 {
			t.Fatal("all consumed, yet unconsumed")
		}
	})
}
