package report

import (
	"fmt"

	"github.com/acpsnap/acpsnap/internal/console"
)

// Caps of what the HTML view shows of one scenario, besides MaxValueBytes
// for a tool's input and output: a report stays readable and its size
// bounded however much an agent wrote.
const (
	// MaxTextBytes bounds one text: a message, a thought, a prompt, an
	// error, a title, a plan entry; the rest is counted.
	MaxTextBytes = 64 << 10
	// MaxItems bounds the items of one transcript, nested ones included;
	// the items past it are counted under the last turn shown.
	MaxItems = 2000
	// MaxCallsShown bounds the model calls listed per transcript.
	MaxCallsShown = 1000
	// maxDiffBytes bounds the diff of one scenario.
	maxDiffBytes = 16 * MaxValueBytes
)

// Elided is the kind of the item that stands for the items past MaxItems:
// its Text says how many were left out.
const Elided Kind = "elided"

// shown is r as the page shows it: every string made visible, each
// transcript within the caps.
func (r Page) shown() Page {
	out := r // every field kept (Run too), the strings made visible
	out.Title, out.Corpus, out.Scenarios = console.Line(r.Title), console.Line(r.Corpus), make([]Scenario, len(r.Scenarios))
	for i, s := range r.Scenarios {
		s.Corpus, s.Name, s.Status, s.Accept = console.Line(s.Corpus), console.Line(s.Name), console.Line(s.Status), console.Line(s.Accept)
		s.Reason, s.TranscriptErr, s.Stderr = capText(s.Reason), capText(s.TranscriptErr), capText(s.Stderr)
		s.Diff = capped(s.Diff, maxDiffBytes)
		if s.Transcript != nil {
			s.Transcript = s.Transcript.shown()
		}
		out.Scenarios[i] = s
	}
	return out
}

// shown is t made visible and within the caps; Input, Output and Detail
// are left to value, which caps and shows them.
func (t *Transcript) shown() *Transcript {
	out := &Transcript{Name: console.Line(t.Name), Source: console.Line(t.Source)}
	for _, e := range t.Errors {
		out.Errors = append(out.Errors, capText(e))
	}
	left := MaxItems
	for _, turn := range t.Turns {
		out.Turns = append(out.Turns, turn.shown(&left))
	}
	if left < 0 && len(out.Turns) > 0 {
		last := &out.Turns[len(out.Turns)-1]
		last.Items = append(last.Items, Item{Kind: Elided, Text: fmt.Sprintf("… %d more items not shown (the report shows %d per scenario)", -left, MaxItems)})
	}
	for i, c := range t.Calls {
		if i == MaxCallsShown {
			out.Errors = append(out.Errors, fmt.Sprintf("… %d more model calls not shown (the report lists %d)", len(t.Calls)-i, MaxCallsShown))
			break
		}
		c.Log, c.Request, c.Status, c.Response = console.Line(c.Log), capText(c.Request), console.Line(c.Status), capText(c.Response)
		out.Calls = append(out.Calls, c)
	}
	return out
}

// shown is t made visible, its items within left (which counts down, and
// below zero counts the items left out).
func (t Turn) shown(left *int) Turn {
	out := Turn{Session: console.Line(t.Session), Prompt: capText(t.Prompt), Stop: console.Line(t.Stop), Error: capText(t.Error)}
	out.Items = shownItems(t.Items, left)
	return out
}

func shownItems(items []Item, left *int) []Item {
	var out []Item
	for _, it := range items {
		if *left--; *left < 0 {
			*left -= countItems(it.Tool, it.Turn)
			continue
		}
		it.Text = capText(it.Text)
		if it.Tool != nil {
			tc := *it.Tool
			tc.ID, tc.Kind, tc.Title, tc.Status = console.Line(tc.ID), console.Line(tc.Kind), capText(tc.Title), console.Line(tc.Status)
			tc.Items = shownItems(tc.Items, left)
			it.Tool = &tc
		}
		if it.Permission != nil {
			a := Asked{Title: capText(it.Permission.Title), Answer: console.Line(it.Permission.Answer)}
			for _, o := range it.Permission.Options {
				a.Options = append(a.Options, console.Line(o))
			}
			it.Permission = &a
		}
		if it.Plan != nil {
			plan := make([]PlanEntry, len(it.Plan))
			for i, e := range it.Plan {
				plan[i] = PlanEntry{Content: capText(e.Content), Status: console.Line(e.Status), Priority: console.Line(e.Priority)}
			}
			it.Plan = plan
		}
		if it.Turn != nil {
			sub := it.Turn.shown(left)
			it.Turn = &sub
		}
		out = append(out, it)
	}
	return out
}

// countItems counts the items under a tool call or a subagent's turn.
func countItems(tc *Tool, turn *Turn) int {
	var items []Item
	if tc != nil {
		items = append(items, tc.Items...)
	}
	if turn != nil {
		items = append(items, turn.Items...)
	}
	n := len(items)
	for _, it := range items {
		n += countItems(it.Tool, it.Turn)
	}
	return n
}

// capText is s made visible, its first MaxTextBytes only.
func capText(s string) string { return capped(s, MaxTextBytes) }

// capped is s made visible, its first max bytes only and a note of the
// rest.
func capped(s string, max int) string {
	if len(s) <= max {
		return console.Text(s)
	}
	n := runeCutAt(s, max)
	return console.Text(s[:n]) + fmt.Sprintf("… %s more not shown", size(len(s)-n))
}
