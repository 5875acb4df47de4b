package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/cassette/tool"
)

// An agent wraps its tool execution with a Cassette: in record mode the
// selected tools run for real and are recorded; in replay mode they are
// served from the file and their bodies never run.
func Example() {
	dir, _ := os.MkdirTemp("", "cassette-example")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "tools.cassette.jsonl")

	runs := 0
	weather := func(context.Context) (json.RawMessage, error) {
		runs++ // an HTTP request, in a real agent
		return json.RawMessage(`{"temp":21,"unit":"c"}`), nil
	}
	for _, mode := range []tool.Mode{tool.Record, tool.Replay} {
		c, err := tool.Open(tool.Config{Mode: mode, File: file, Include: []string{"weather_*"}})
		if err != nil {
			fmt.Println(err)
			return
		}
		v, err := c.Call(context.Background(), "", "weather_lookup", json.RawMessage(`{"city":"武汉","unit":"c"}`), weather)
		fmt.Println(mode, string(v), err, runs)
		fmt.Println(mode, "close:", c.Close())
	}
	// Output:
	// record {"temp":21,"unit":"c"} <nil> 1
	// record close: <nil>
	// replay {"temp":21,"unit":"c"} <nil> 1
	// replay close: <nil>
}

// The first difference poisons the player: later selected calls fail too,
// and Close reports what was not consumed.
func Example_mismatch() {
	dir, _ := os.MkdirTemp("", "cassette-example")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "tools.cassette.jsonl")
	ctx := context.Background()
	ok := func(context.Context) (json.RawMessage, error) { return json.RawMessage(`"ok"`), nil }

	r, _ := tool.Open(tool.Config{Mode: tool.Record, File: file, Include: []string{"fetch"}})
	r.Call(ctx, "", "fetch", json.RawMessage(`{"url":"http://127.0.0.1/a"}`), ok)
	r.Call(ctx, "", "fetch", json.RawMessage(`{"url":"http://127.0.0.1/b"}`), ok)
	r.Close()

	p, _ := tool.Open(tool.Config{Mode: tool.Replay, File: file})
	_, err := p.Call(ctx, "", "fetch", json.RawMessage(`{"url":"http://127.0.0.1/changed"}`), ok)
	fmt.Println(err)
	_, err = p.Call(ctx, "", "fetch", json.RawMessage(`{"url":"http://127.0.0.1/b"}`), ok)
	fmt.Println(err)
	fmt.Println(p.Close())
	// Output:
	// tool cassette: CASSETTE_MISMATCH: call 0 (root, fetch): arguments differ (sha256:20a7c9d8b794, recorded sha256:9e43522d564e)
	// tool cassette: CASSETTE_MISMATCH: call 1 (root, fetch): refused, the player is poisoned since call 0: arguments differ (sha256:20a7c9d8b794, recorded sha256:9e43522d564e)
	// tool cassette: CASSETTE_MISMATCH: call 0 (root, fetch): arguments differ (sha256:20a7c9d8b794, recorded sha256:9e43522d564e)
	// tool cassette: tools.cassette.jsonl: 2 recorded call(s) not consumed (the first: call 0 (root, fetch))
}
