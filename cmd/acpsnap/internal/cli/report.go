package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/report"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// printer writes one progress record per finished scenario.
type printer struct {
	w       io.Writer
	json    bool
	accept  func(check.Outcome) string
	changes report.Changes // a change shared by scenarios is shown once
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
		b, _ := strictjson.Marshal(jsonOutcome{o.Name, string(o.Status), millis(o.Duration), o.Reason, o.Diff, o.Wrote, accept})
		p.w.Write(b)
		return
	}
	d := o.Duration.Round(time.Millisecond)
	// A scenario's name is a folder name a pull request chooses; what
	// check says of it is made visible already (check.Outcome).
	o.Name, accept = console.Line(o.Name), console.Line(accept)
	for i, w := range o.Wrote {
		o.Wrote[i] = console.Line(w)
	}
	switch {
	case o.Status == check.Unrecorded:
		fmt.Fprintf(p.w, "FAIL  %s: %s\n", o.Name, unrecordedMessage(o, accept))
	case o.Status == check.Skipped:
		fmt.Fprintf(p.w, "skip  %s (%s)\n", o.Name, o.Reason)
	case o.Status == check.Passed && len(o.Wrote) > 0:
		fmt.Fprintf(p.w, "wrote %s %v: %s\n", o.Name, d, strings.Join(o.Wrote, ", "))
		for _, n := range o.Notes {
			fmt.Fprintf(p.w, "  note: %s\n", n)
		}
	case o.Status == check.Passed:
		fmt.Fprintf(p.w, "ok    %s %v\n", o.Name, d)
	default:
		if first := p.changes.Add(o); first != "" {
			reason, rest := report.SameChange(o, first)
			fmt.Fprintf(p.w, "FAIL  %s %v: %s\n", o.Name, d, reason)
			if rest != "" {
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

// changeSummary prints, for each change more than one scenario failed
// on, how many it affects and the commands that accept it for all of
// them: the mode each scenario needs (refresh for an authored one, record
// for a live one, update for stdout alone).
func (p *printer) changeSummary(w io.Writer, f *runFlags) {
	for _, c := range p.changes.Shared() {
		var cmds []string
		for _, a := range c.Commands() {
			cmds = append(cmds, commandFor(string(a.Mode), f.dir, f.agent, "-run", shellQuote(a.Pattern)))
		}
		if len(cmds) > 0 {
			fmt.Fprintf(w, "%s; accept once with: %s\n", console.Line(c.String()), console.Line(strings.Join(cmds, " and ")))
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

// writeJUnit writes the outcomes of f's corpus as a JUnit XML file
// (atomically; report.JUnit says what it holds), once scan (package secrets'
// Check) passes it; else nothing.
func writeJUnit(f *runFlags, outs []check.Outcome, accept func(check.Outcome) string, scan func(string, []byte) error) error {
	suite := report.Suite{Corpus: report.CorpusName(f.dir, "", f.bazel.Runfiles), Outcomes: outs, Accept: accept, Started: f.started}
	b := report.JUnit([]report.Suite{suite})
	if err := scan(f.junit, b); err != nil {
		return fmt.Errorf("write junit report: %w", err)
	}
	if err := safefile.Write(f.junit, b, 0o644); err != nil {
		return fmt.Errorf("write junit report: %w", err)
	}
	return nil
}

// guardsFailed prints the guard violations vs of a run, writes the JUnit
// report that shows them as failing test cases, and returns the error
// that ends the run before any agent starts.
func (e *env) guardsFailed(f *runFlags, rc *check.RunConfig, vs []check.Violation) error {
	for _, v := range vs {
		fmt.Fprintln(e.stderr, v)
	}
	err := usagef("%d guard violation(s) in %s; fix them (or run '%s')", len(vs), f.dir, commandFor("verify", f.dir, ""))
	if f.junit == "" {
		return err
	}
	names, serr := rc.Selected()
	outs := guardOutcomes(f.dir, names, vs, filtered(rc) == nil)
	if werr := errors.Join(serr, writeJUnit(f, outs, func(check.Outcome) string { return "" }, secrets.New(rc.Secrets, rc.Environ).Check)); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// guardOutcomes are the test cases of a run its guard violations vs
// stopped: the corpus's "guards" case when the whole corpus was checked
// (whole), else each scenario of names with its own violations (and the
// "guards" case with those of no scenario); every other scenario of names
// skipped, as never run.
func guardOutcomes(dir string, names []string, vs []check.Violation, whole bool) []check.Outcome {
	own := map[string][]check.Violation{}
	var rest []check.Violation
	for _, v := range vs {
		name := ""
		if rel, err := filepath.Rel(dir, v.Path); err == nil && !whole {
			name, _, _ = strings.Cut(filepath.ToSlash(rel), "/")
		}
		if slices.Contains(names, name) {
			own[name] = append(own[name], v)
		} else {
			rest = append(rest, v)
		}
	}
	var outs []check.Outcome
	if len(rest) > 0 || whole {
		outs = append(outs, report.GuardsOutcome(report.GuardsName, rest))
	}
	for _, n := range names {
		if len(own[n]) > 0 {
			outs = append(outs, report.GuardsOutcome(n, own[n]))
			continue
		}
		outs = append(outs, check.Outcome{Name: n, Status: check.Skipped, Reason: fmt.Sprintf("not run: %d guard violation(s) in the corpus", len(vs))})
	}
	return outs
}
