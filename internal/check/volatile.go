package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/probe"
	"github.com/acpsnap/acpsnap/internal/proxy"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// Unstable reports whether a write failed because the replay of what it
// recorded sent model requests that differ from the recording in values
// the agent makes anew on every run: acpsnap.yml settles that (a scrub,
// model.ignore), not a change of model.json.
func Unstable(o Outcome) bool {
	var u *unverified
	return errors.As(o.Err, &u) && len(u.vary) > 0
}

// varying are the request values in which a failed replay of the staged
// scenario stage (its outcome o) differs from what was just recorded
// there, each with the setting that settles it; nil when the replay
// failed on anything else as well. They are either the changes of a
// request drift, or the model/request events of a composed log that differ
// when nothing else does.
func varying(o Outcome, stage string) []probe.Variance {
	var d *drifted
	if errors.As(o.Err, &d) {
		return driftValues(d.changes)
	}
	if o.Got == nil || len(o.Got.Logs) == 0 || len(o.ChangeFiles) != 1 || o.ChangeFiles[0] != scenario.SessionFile {
		return nil
	}
	recorded, err := os.ReadFile(filepath.Join(stage, scenario.SessionFile))
	if err != nil {
		return nil
	}
	return requestValues(recorded, o.Got.Logs[0])
}

// drifted is the error of a run that sent a request the recording does
// not have, with the changes of its first request drift.
type drifted struct {
	error
	changes []proxy.Change
}

func (d *drifted) Unwrap() error { return d.error }

// withDrift is err, carrying the first request drift of res if it has one.
func withDrift(err error, res *harness.Result) error {
	if res == nil || !res.RequestDrift || len(res.Drifts) == 0 {
		return err
	}
	return &drifted{err, res.Drifts[0].Changes}
}

// driftValues are a drift's changes as values that vary; nil when one is
// the method or the path (a request to somewhere else is no value).
func driftValues(changes []proxy.Change) []probe.Variance {
	var out []probe.Variance
	for _, c := range changes {
		part := c.Path
		switch {
		case strings.HasPrefix(part, "$"):
			part = pointer(part)
		case !strings.HasPrefix(part, "header:"):
			return nil
		}
		out = append(out, probe.Variance{Where: "request", Path: c.Path, Values: []string{c.Recorded, c.Request},
			Suggest: probe.SettleRequest(part, []string{c.Recorded, c.Request})})
	}
	return out
}

// requestValues compares two composed logs whose only differing lines are
// model/request events: the values that differ, call by call; nil when
// other lines differ too.
func requestValues(recorded, replayed []byte) []probe.Variance {
	lost, gained := changedLines(recorded, replayed)
	for _, l := range append(lost, gained...) {
		if eventType(l) != "model/request" {
			return nil
		}
	}
	a, b := requestEvents(recorded), requestEvents(replayed)
	var out []probe.Variance
	for call, data := range a {
		if other, ok := b[call]; ok && !bytes.Equal(data, other) {
			for _, v := range probe.RequestChanges(data, other) {
				v.At = "call " + strconv.Itoa(call)
				v.Path = "$" + strings.TrimPrefix(strings.TrimPrefix(v.Path, "$"), ".body")
				out = append(out, v)
			}
		}
	}
	return out
}

// eventType is a log line's type.
func eventType(line string) string {
	var ev struct {
		Type string `json:"type"`
	}
	json.Unmarshal([]byte(line), &ev)
	return ev.Type
}

// requestEvents are the data of a composed log's model/request events, by
// call.
func requestEvents(log []byte) map[int][]byte {
	out := map[int][]byte{}
	for _, line := range bytes.Split(log, []byte("\n")) {
		var ev struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal(line, &ev) != nil || ev.Type != "model/request" {
			continue
		}
		var d struct {
			Call int `json:"call"`
		}
		json.Unmarshal(ev.Data, &d)
		out[d.Call] = ev.Data
	}
	return out
}

// volatileMessage says that what a write recorded does not replay because
// request values change on every run, which ones, and the acpsnap.yml
// lines that settle them.
func volatileMessage(vary []probe.Variance) string {
	var b strings.Builder
	b.WriteString("what this run recorded does not replay, so nothing was written: its replay sent model requests that differ from the recording in values the agent makes anew on every run (a trace or request id, a time):")
	for _, v := range vary {
		fmt.Fprintf(&b, "\n  %s: recorded %s, replay %s", strings.TrimSpace(v.At+" "+v.Path), v.Values[0], v.Values[1])
	}
	if snippet := (probe.Report{Varies: vary}).Snippet(); snippet != "" {
		b.WriteString("\n  they are no part of the question: settle them in acpsnap.yml (acpsnap probe finds such values):\n    " +
			strings.ReplaceAll(strings.TrimSuffix(snippet, "\n"), "\n", "\n    "))
	} else {
		b.WriteString("\n  they are no part of the question: scrub them in acpsnap.yml (acpsnap probe finds such values and prints the rule)")
	}
	return b.String()
}

// pointer is the JSON pointer of a drift's JSON path: $.a.b[0]["c d"] is
// /a/b/0/c d; an element that moved ([1→2]) is where the request has it.
func pointer(path string) string {
	var b strings.Builder
	rest := strings.TrimPrefix(path, "$")
	for rest != "" {
		var tok string
		switch {
		case strings.HasPrefix(rest, "."):
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			tok, rest = rest[1:end+1], rest[end+1:]
		case strings.HasPrefix(rest, "["):
			end := strings.Index(rest, "]")
			if end < 0 {
				return b.String() + "/" + rest
			}
			tok, rest = rest[1:end], rest[end+1:]
			if q, err := strconv.Unquote(tok); err == nil {
				tok = q
			} else if _, moved, ok := strings.Cut(tok, "→"); ok {
				tok = moved
			}
		default:
			tok, rest = rest, ""
		}
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(tok))
	}
	return b.String()
}
