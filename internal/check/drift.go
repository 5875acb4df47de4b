package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpsnap/acpsnap/internal/proxy"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// driftChange is the change of the first request drift of an HTTP run:
// the JSON paths that differ from the nearest recorded call, and the
// changes themselves (the same text for every scenario whose requests
// changed the same way: one word of a system prompt all of them send).
func driftChange(drifts []proxy.Drift) (paths []string, change string) {
	if len(drifts) == 0 || len(drifts[0].Changes) == 0 {
		return nil, ""
	}
	var b strings.Builder
	for _, c := range drifts[0].Changes {
		paths = append(paths, c.Path)
		fmt.Fprintf(&b, "%s: recorded %s, request %s\n", c.Path, c.Recorded, c.Request)
	}
	return paths, b.String()
}

// inputEvents are the session log events that make up what a native agent
// sends its model: the prompt, the request header (system prompt, tools)
// and the tool results the model reads next.
var inputEvents = map[string]bool{"user/message": true, "request/header": true, "tool/result": true}

// inputDrift says where the model's input differs between the fixture and
// the live run of a native agent ("session.jsonl: user/message, event 2"),
// or "" when it is the same. Composed logs (HTTP agents) never get here
// with a changed request: the proxy reports those as drifts.
func inputDrift(want, got *scenario.Transcript) string {
	for i := 0; i < min(len(want.Logs), len(got.Logs)); i++ {
		w, g := inputsOf(want.Logs[i]), inputsOf(got.Logs[i])
		for j := 0; j < max(len(w), len(g)); j++ {
			switch {
			case j >= len(w):
				return fmt.Sprintf("%s: the live run sends more model input (%s)", scenario.LogName(i), g[j].typ)
			case j >= len(g):
				return fmt.Sprintf("%s: the live run sends less model input (no %s)", scenario.LogName(i), w[j].typ)
			case !bytes.Equal(w[j].data, g[j].data):
				return fmt.Sprintf("%s: %s, log line %d", scenario.LogName(i), g[j].typ, g[j].line)
			}
		}
	}
	return ""
}

type inputEvent struct {
	typ  string
	line int
	data []byte
}

// inputsOf lists the input events of a normalized log, with their data.
func inputsOf(log []byte) []inputEvent {
	var out []inputEvent
	for n, line := range bytes.Split(log, []byte("\n")) {
		var ev struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal(line, &ev) == nil && inputEvents[ev.Type] {
			out = append(out, inputEvent{ev.Type, n + 1, ev.Data})
		}
	}
	return out
}
