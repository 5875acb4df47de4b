package harness

// This file holds the waits of the step driver: for a file, an update,
// a turn or a child in the session logs, and for the content a stream
// carried before a cancel; every wait is bounded by its step's deadline.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/conformance"
	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/model"
)

// Condition-based waits look again after a pause that starts at pollMin
// and doubles up to pollInterval, back to pollMin whenever the agent
// writes a stdout line: a condition met soon after the wait began (the
// common case) is seen within a fraction of a millisecond, one that takes
// long costs a look every pollInterval.
const (
	pollMin      = 250 * time.Microsecond
	pollInterval = 5 * time.Millisecond
)

func (r *run) waitForFile(d deadline, path string) error {
	return r.pollFile(d, path, nil)
}

func (r *run) pollFile(d deadline, path string, also func() error) error {
	full := filepath.Join(r.roots.Cwd, path)
	return r.poll(d, func() (bool, string, error) {
		_, err := os.Stat(full)
		return err == nil, fmt.Sprintf("file %s in the cwd", path), nil
	}, also)
}

// waitForUpdate waits until the agent's stdout has carried a
// session/update of that kind for the current session: the settle point
// for an update an agent sends on a timer (codex-acp's
// available_commands_update), so the next prompt never races it.
func (r *run) waitForUpdate(d deadline, kind string) error {
	id, err := r.session()
	if err != nil {
		return err
	}
	seen := 0
	return r.poll(d, func() (bool, string, error) {
		lines := r.agent.StdoutLines()
		for ; seen < len(lines); seen++ {
			if n, ok := conformance.ParseUpdate(lines[seen]); ok && n.Session == id && n.Kind == kind {
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("session/update %s for session %s on stdout", kind, id), nil
	}, nil)
}

func (r *run) waitForTurn(d deadline, typ string, min int) error {
	return r.pollTurn(d, typ, min, nil)
}

func (r *run) pollTurn(d deadline, typ string, min int, also func() error) error {
	return r.poll(d, func() (bool, string, error) {
		turn, name, err := r.primaryTurn(typ)
		return turn >= min, fmt.Sprintf("%s with turn >= %d in %s", typ, min, name), err
	}, also)
}

// primaryTurn is the highest turn of typ events in the current session's
// log (0 while the log does not exist) and the log's name.
func (r *run) primaryTurn(typ string) (int, string, error) {
	id, err := r.session()
	if err != nil {
		return 0, "", err
	}
	l, err := harvest.Find(r.roots.Sessions, string(id))
	if err != nil || l == nil {
		return 0, fmt.Sprintf("the log of session %s (not written yet)", id), err
	}
	turn, err := l.MaxTurn(typ)
	return turn, l.Name, err
}

func (r *run) waitForChild(d deadline, n, min int) error {
	return r.poll(d, func() (bool, string, error) {
		children, err := harvest.Children(r.roots.Sessions)
		if err != nil || len(children) < n {
			return false, fmt.Sprintf("turn/end with turn >= %d in child log %d (%d child logs so far)", min, n, len(children)), err
		}
		l := children[n-1]
		turn, err := l.MaxTurn("turn/end")
		return turn >= min, fmt.Sprintf("turn/end with turn >= %d in child log %d (%s)", min, n, l.Name), err
	}, nil)
}

// poll checks cond until it holds, it fails, the step's time is up, the
// run fails, or the agent exits (after a last look): at once, then after
// pauses that double from pollMin to pollInterval, back to pollMin
// whenever the agent writes a stdout line (a sign of progress). A pause is
// never shorter than twice the last look took, so an agent flooding
// stdout beside a large log cannot keep the harness reading it. also, when
// set, is checked too and may end the wait with an error.
func (r *run) poll(d deadline, cond func() (ok bool, what string, err error), also func() error) error {
	timer := time.NewTimer(time.Until(d.at))
	defer timer.Stop()
	pause := pollMin
	again := time.NewTimer(time.Hour)
	defer again.Stop()
	for {
		t0 := time.Now()
		ok, what, err := cond()
		if err != nil || ok {
			return err
		}
		if also != nil {
			if err := also(); err != nil {
				return err
			}
		}
		floor := max(pollMin, 2*time.Since(t0))
		pause = max(pause, floor)
		next := time.Now().Add(pause)
		again.Reset(pause)
	wait:
		for {
			select {
			case <-again.C:
				pause = min(2*pause, max(pollInterval, floor))
				break wait
			case <-r.agent.Wrote():
				pause = floor
				if time.Until(next) > floor {
					next = time.Now().Add(floor)
					again.Reset(floor)
				}
			case <-timer.C:
				return timedOut(d, what)
			case <-r.failed:
				return r.failErr
			case <-r.ctx.Done():
				return r.cancelled(what)
			case <-r.agent.Exited():
				if ok, what, err = cond(); err != nil || ok {
					return err
				}
				return fmt.Errorf("agent exited (%s) while the harness was waiting for %s", r.agent.ExitState(), what)
			}
		}
	}
}

// waitError is a wait that ended without an answer (time up, cancelled).
type waitError struct{ msg string }

func (e *waitError) Error() string { return e.msg }

func timedOut(d deadline, what string) error {
	return &waitError{fmt.Sprintf("timed out after %s waiting for %s (%s)", d.total, what, d.by)}
}

func (r *run) cancelled(what string) error {
	return &waitError{fmt.Sprintf("cancelled while waiting for %s: %v", what, r.ctx.Err())}
}

// waitStreaming waits for the cancel point of an HTTP-model agent: the
// model proxy stalls a hangAfter override, and the agent's stdout (its
// lines from the prompt's on) shows what the events before the stall
// carried. That point is defined by content, never by time: the events
// are on their way to the agent when the proxy stalls, and an agent that
// drops what it has not shown once cancelled (most do) would otherwise
// lose the first chunk to a cancel that came too soon.
func (r *run) waitStreaming(d deadline, from int, also func() error) error {
	err := r.poll(d, func() (bool, string, error) {
		select {
		case <-r.model.Hung():
			return true, "", nil
		default:
			return false, "the model proxy to stall a hangAfter override (replay.override.json)", nil
		}
	}, also)
	if err != nil {
		return err
	}
	want := carried(r.model.Dialect(), r.model.Sent())
	var got content // what the lines before next showed
	next := from
	return r.poll(d, func() (bool, string, error) {
		lines := r.agent.StdoutLines()
		got.add(shown(lines[next:]))
		next = len(lines)
		return got.covers(want), fmt.Sprintf("the agent's stdout to show what the model streamed before the hang point, %s (shown so far: %s)", want, got), nil
	}, also)
}

func (c *content) add(more content) { c.text, c.thought = c.text+more.text, c.thought+more.thought }

// content is what a stream carries that an agent shows on ACP: its text
// (agent_message_chunk) and its reasoning (agent_thought_chunk), each
// concatenated, so agents that split or merge chunks compare alike.
// Tool calls are not in it: agents show a tool call under titles and ids
// of their own, most only once it runs (after the stream); usage, roles
// and ids show as nothing an agent must send.
type content struct{ text, thought string }

// carried is the content of the stream events data (SSE event data, as
// the agent got them) in dialect: their chunks as the dialect's decoder
// reads them, the stream left open.
func carried(name string, data [][]byte) content {
	var c content
	d, err := dialect.Lookup(name)
	if err != nil || len(data) == 0 {
		return c
	}
	var body bytes.Buffer
	for _, e := range data {
		for _, l := range strings.Split(string(e), "\n") {
			body.WriteString("data: " + l + "\n")
		}
		body.WriteString("\n")
	}
	d.Codec.Decode(&body, func(ch model.Chunk) error { // ends "stream ended before …": it hangs
		switch ch.Type {
		case model.TextDelta:
			c.text += ch.Text
		case model.ReasoningDelta:
			c.thought += ch.Text
		}
		return nil
	})
	return c
}

// shown is the content of the session/update notifications among lines.
func shown(lines [][]byte) content {
	var c content
	for _, l := range lines {
		n, ok := conformance.ParseUpdate(l)
		if !ok {
			continue
		}
		var u struct {
			Content struct{ Type, Text string } `json:"content"`
		}
		if json.Unmarshal(n.Update, &u) != nil || u.Content.Type != "text" {
			continue
		}
		switch n.Kind {
		case "agent_message_chunk":
			c.text += u.Content.Text
		case "agent_thought_chunk":
			c.thought += u.Content.Text
		}
	}
	return c
}

// covers reports whether c shows want: each of its parts holds want's,
// whitespace aside (an agent may trim or rewrap what it shows).
func (c content) covers(want content) bool {
	return strings.Contains(squeeze(c.text), squeeze(want.text)) && strings.Contains(squeeze(c.thought), squeeze(want.thought))
}

func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

func (c content) String() string {
	if c.text == "" && c.thought == "" {
		return "nothing"
	}
	var parts []string
	if c.text != "" {
		parts = append(parts, fmt.Sprintf("text %.200q", c.text))
	}
	if c.thought != "" {
		parts = append(parts, fmt.Sprintf("reasoning %.200q", c.thought))
	}
	return strings.Join(parts, " and ")
}
