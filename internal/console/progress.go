package console

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// Outcome is how one scenario ended.
type Outcome int

// The outcomes, in the order the live line lists them.
const (
	Passed Outcome = iota
	Failed
	Skipped
	numOutcomes
)

// String is the word the live line uses for o ("passed", "failed", "skipped").
func (o Outcome) String() string {
	switch o {
	case Passed:
		return "passed"
	case Failed:
		return "failed"
	case Skipped:
		return "skipped"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Result is one finished scenario.
type Result struct {
	Name    string
	Outcome Outcome
	Elapsed time.Duration
}

// ProgressConfig configures a Tracker.
type ProgressConfig struct {
	// Out receives the live line. nil: io.Discard.
	Out io.Writer
	// Terminal says Out is a terminal. false: the Tracker draws nothing and
	// Print writes its text through unchanged.
	Terminal bool
	// Total is the number of scenarios in the run.
	Total int
	// Width caps the live line so that it never wraps (a wrapped line
	// cannot be rewritten in place). 0: 79.
	Width int
}

// clearLine returns the cursor to column 0 and erases the line.
const clearLine = "\r\x1b[2K"

// Tracker counts scenarios as they start and finish and keeps the live line
// up to date.
type Tracker struct {
	mu      sync.Mutex
	cfg     ProgressConfig
	running map[string]int
	counts  [numOutcomes]int
	results []Result
	drawn   bool // the live line is on screen
}

// NewProgress returns a Tracker that has drawn nothing yet.
func NewProgress(cfg ProgressConfig) *Tracker {
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Width <= 0 {
		cfg.Width = 79
	}
	return &Tracker{cfg: cfg, running: map[string]int{}}
}

// Start notes that the scenario name is running.
func (t *Tracker) Start(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.running[name]++
	t.draw("")
}

// Done notes that name finished with outcome after elapsed.
func (t *Tracker) Done(name string, outcome Outcome, elapsed time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running[name] > 1 {
		t.running[name]--
	} else {
		delete(t.running, name)
	}
	if outcome >= 0 && outcome < numOutcomes {
		t.counts[outcome]++
	}
	t.results = append(t.results, Result{Name: name, Outcome: outcome, Elapsed: elapsed})
	t.draw("")
}

// Print writes text (normally whole lines) so that it stays in the
// scrollback: on a terminal the live line is erased, text written, and the
// line drawn again below it; otherwise text is written as it is.
func (t *Tracker) Print(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.cfg.Terminal {
		io.WriteString(t.cfg.Out, text)
		return
	}
	t.draw(text)
}

// Finish erases the live line, leaving the cursor at the start of an empty
// line for the caller's summary. Later updates draw it again.
func (t *Tracker) Finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.drawn {
		io.WriteString(t.cfg.Out, clearLine)
		t.drawn = false
	}
}

// Results returns the finished scenarios in the order they finished.
func (t *Tracker) Results() []Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Result(nil), t.results...)
}

// Line is the live line as it would be drawn now.
func (t *Tracker) Line() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.line()
}

// draw writes above (if any) and the live line in one Write; t.mu is held.
func (t *Tracker) draw(above string) {
	if !t.cfg.Terminal {
		return
	}
	var sb strings.Builder
	sb.WriteString(clearLine)
	sb.WriteString(above)
	if above != "" && !strings.HasSuffix(above, "\n") {
		sb.WriteString("\n")
	}
	sb.WriteString(t.line())
	io.WriteString(t.cfg.Out, sb.String())
	t.drawn = true
}

// line formats the counts; t.mu is held.
func (t *Tracker) line() string {
	parts := []string{fmt.Sprintf("%d/%d passed", t.counts[Passed], t.cfg.Total)}
	for o := Failed; o < numOutcomes; o++ {
		if t.counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", t.counts[o], o))
		}
	}
	if n := t.runningCount(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d running…", n))
	}
	return truncate(strings.Join(parts, ", "), t.cfg.Width)
}

func (t *Tracker) runningCount() int {
	n := 0
	for _, c := range t.running {
		n += c
	}
	return n
}

// truncate cuts s to at most width runes, ending in "…" when cut.
func truncate(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}

// Slowest formats the n slowest results, slowest first (ties by name), as an
// indented table headed "slowest scenarios:"; "" when there are none or n <= 0.
func Slowest(results []Result, n int) string {
	if n <= 0 || len(results) == 0 {
		return ""
	}
	rs := append([]Result(nil), results...)
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Elapsed != rs[j].Elapsed {
			return rs[i].Elapsed > rs[j].Elapsed
		}
		return rs[i].Name < rs[j].Name
	})
	rs = rs[:min(n, len(rs))]
	times := make([]string, len(rs))
	w := 0
	for i, r := range rs {
		times[i] = r.Elapsed.Round(time.Millisecond).String()
		w = max(w, len(times[i]))
	}
	var sb strings.Builder
	sb.WriteString("slowest scenarios:\n")
	for i, r := range rs {
		fmt.Fprintf(&sb, "  %*s  %s", w, times[i], Line(r.Name))
		if r.Outcome != Passed {
			fmt.Fprintf(&sb, " (%s)", r.Outcome)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}
