package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/check"
	"github.com/acpsnap/acpsnap/internal/atomicfile"
	"github.com/acpsnap/acpsnap/internal/jsonl"
)

// printer writes one progress record per finished scenario.
type printer struct {
	w      io.Writer
	json   bool
	accept func(check.Outcome) string
	pins   check.PinChanges // a pin change shared by scenarios is shown once
}

// ordered passes outcomes that arrive as scenarios finish to print in
// name order, each as soon as every scenario before it has finished, so
// the text and -json lines are the same on every run however many run at
// once.
type ordered struct {
	print func(check.Outcome)
	index map[string]int
	held  []*check.Outcome
	next  int
}

func inNameOrder(names []string, print func(check.Outcome)) *ordered {
	o := &ordered{print: print, index: map[string]int{}, held: make([]*check.Outcome, len(names))}
	for i, n := range names {
		o.index[n] = i
	}
	return o
}

// done takes one finished outcome (check.RunConfig.OnDone calls it from
// one goroutine at a time).
func (o *ordered) done(out check.Outcome) {
	if i, ok := o.index[out.Name]; ok {
		o.held[i] = &out
	}
	for ; o.next < len(o.held) && o.held[o.next] != nil; o.next++ {
		o.print(*o.held[o.next])
	}
}

// flush prints what never finished (an interrupted run), from the
// outcomes the run returned in name order.
func (o *ordered) flush(outs []check.Outcome) {
	for _, out := range outs[min(o.next, len(outs)):] {
		o.print(out)
	}
	o.next = len(o.held)
}

// jsonOutcome is the -json form of an outcome.
type jsonOutcome struct {
	Name       string   `json:"name"`
	Status     string   `json:"status"`
	DurationMs float64  `json:"durationMs"` // to the microsecond: a replay takes milliseconds
	Reason     string   `json:"reason,omitempty"`
	Diff       string   `json:"diff,omitempty"`
	Wrote      []string `json:"wrote,omitempty"`
	Accept     string   `json:"accept,omitempty"`
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Round(time.Microsecond).Microseconds()) / 1000 }

func (p *printer) outcome(o check.Outcome) {
	accept := p.accept(o)
	if p.json {
		b, _ := jsonl.Marshal(jsonOutcome{o.Name, string(o.Status), millis(o.Duration), o.Reason, o.Diff, o.Wrote, accept})
		p.w.Write(b)
		return
	}
	d := o.Duration.Round(time.Millisecond)
	switch {
	case o.Status == check.Unrecorded:
		fmt.Fprintf(p.w, "FAIL  %s: %s\n", o.Name, unrecordedMessage(o, accept))
	case o.Status == check.Skipped:
		fmt.Fprintf(p.w, "skip  %s (%s)\n", o.Name, o.Reason)
	case o.Status == check.Passed && len(o.Wrote) > 0:
		fmt.Fprintf(p.w, "wrote %s %v: %s\n", o.Name, d, strings.Join(o.Wrote, ", "))
	case o.Status == check.Passed:
		fmt.Fprintf(p.w, "ok    %s %v\n", o.Name, d)
	default:
		if first := p.pins.Add(o); first != "" {
			fmt.Fprintf(p.w, "FAIL  %s %v: %s\n", o.Name, d, check.SamePinChange(o, first))
			if rest := strings.TrimPrefix(o.Diff, o.PinDrift); rest != "" {
				fmt.Fprintf(p.w, "diff (-want +got):\n%s", indent(rest))
			}
			return
		}
		fmt.Fprintf(p.w, "FAIL  %s %v: %s\n", o.Name, d, o.Reason)
		if o.Diff != "" {
			fmt.Fprintf(p.w, "diff (-want +got):\n%s", indent(o.Diff))
		}
		if accept != "" {
			fmt.Fprintf(p.w, "  accept with: %s\n", accept)
		}
	}
}

// pinSummary prints, for each pin change more than one scenario failed
// on, how many it affects and the one command that accepts it for all.
func (p *printer) pinSummary(w io.Writer, f *runFlags) {
	for _, c := range p.pins.Changes() {
		if len(c.Names) > 1 {
			fmt.Fprintf(w, "%s; accept once with: %s\n", c, commandFor("record", f.dir, f.agent, "-run", shellQuote(c.Pattern())))
		}
	}
}

// unrecordedMessage says that a scenario is not recorded yet and how to
// record it.
func unrecordedMessage(o check.Outcome, accept string) string {
	return o.Reason + ": record it with: " + accept
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

// writeJUnit writes the outcomes of the corpus at dir as a JUnit XML file
// (atomically; check.JUnit says what it holds), once scan (secretscan's
// Check) passes it; else nothing.
func writeJUnit(path, dir string, outs []check.Outcome, accept func(check.Outcome) string, scan func(string, []byte) error) error {
	b := check.JUnit([]check.Suite{{Corpus: dir, Outcomes: outs, Accept: accept}})
	if err := scan(path, b); err != nil {
		return fmt.Errorf("write junit report: %w", err)
	}
	if err := atomicfile.Write(path, b, 0o644); err != nil {
		return fmt.Errorf("write junit report: %w", err)
	}
	return nil
}
