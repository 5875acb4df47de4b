package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
)

func ExampleStopBucket() {
	for _, r := range []string{"end_turn", "max_tokens", "refusal", "cancelled", "a-future-reason"} {
		fmt.Println(subagent.StopBucket(r))
	}
	// Output:
	// completed
	// max-tokens
	// refusal
	// aborted
	// other
}

func ExampleEscape() {
	fmt.Println(subagent.Escape("label\x1b[2J\u202e"))
	// Output: label\u001b[2J\u202e
}

// Diff of a re-recording where one prompt changed names that call only.
func ExampleDiff() {
	dir, _ := os.MkdirTemp("", "subagent-example")
	defer os.RemoveAll(dir)
	recordTwo := func(name, reviewPrompt string) *subagent.Cassette {
		path := filepath.Join(dir, name)
		rec, _ := subagent.Record(path, subagent.Options{})
		for _, q := range []subagent.Request{{Label: "explore", Prompt: "find it"}, {Label: "review", Prompt: reviewPrompt}} {
			rec.Call(context.Background(), subagent.Parent{}, q, func(ctx context.Context, run *subagent.Run) (subagent.Result, error) {
				run.Started()
				return subagent.Result{Output: json.RawMessage(`"ok"`), StopReason: "end_turn"}, nil
			})
		}
		rec.Close()
		c, _ := subagent.Load(path)
		return c
	}
	r := subagent.Diff(recordTwo("a.jsonl", "review a.go"), recordTwo("b.jsonl", "review b.go"))
	fmt.Println(r.Equivalent())
	for _, c := range r.Changes {
		fmt.Println(c.Change, c.Key[:len("root/review-")], c.To+c.From)
	}
	// Output:
	// false
	// removed root/review- result/completed
	// added root/review- result/completed
}
