package subagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/cassette/subagent"
)

// Record a child call at its boundary, then replay it without running
// the child.
func Example() {
	dir, _ := os.MkdirTemp("", "subagent-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "subagents.cassette.jsonl")
	parent := subagent.Parent{Cwd: "$CWD", PermissionMode: "default", Tools: []string{"read", "task"}}
	req := subagent.Request{Label: "explore", Prompt: "find where the config is read"}

	rec, _ := subagent.Record(path, subagent.Options{})
	rec.Call(context.Background(), parent, req, func(ctx context.Context, run *subagent.Run) (subagent.Result, error) {
		run.Started() // the child is running
		return subagent.Result{Output: json.RawMessage(`"config.go:12"`), StopReason: "end_turn"}, nil
	})
	if err := rec.Close(); err != nil { // complete and publish
		fmt.Println(err)
	}

	play, _ := subagent.Replay(path, subagent.Options{})
	res, _ := play.Call(context.Background(), parent, req, nil) // no child: it never runs
	fmt.Println(string(res.Output), res.StopReason)
	fmt.Println(play.Close())
	// Output:
	// "config.go:12" end_turn
	// <nil>
}

// A changed prompt is a miss with a reason and candidates, never the
// prompt itself.
func Example_mismatch() {
	dir, _ := os.MkdirTemp("", "subagent-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "subagents.cassette.jsonl")
	parent := subagent.Parent{Cwd: "$CWD"}
	rec, _ := subagent.Record(path, subagent.Options{})
	rec.Call(context.Background(), parent, subagent.Request{Label: "review", Prompt: "review a.go"},
		func(ctx context.Context, run *subagent.Run) (subagent.Result, error) {
			run.Started()
			return subagent.Result{Output: json.RawMessage(`"ok"`), StopReason: "end_turn"}, nil
		})
	rec.Close()

	play, _ := subagent.Replay(path, subagent.Options{})
	_, err := play.Call(context.Background(), parent, subagent.Request{Label: "review", Prompt: "review b.go"}, nil)
	var miss *subagent.MismatchError
	if errors.As(err, &miss) {
		d := miss.Diagnostic
		fmt.Println(d.Reason, len(d.Candidates), d.Candidates[0].Admission, d.Candidates[0].Consumed)
	}
	// Output:
	// request-changed 1 1 false
}
