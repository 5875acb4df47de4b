package probe

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/acpsnap/acpsnap/internal/harness/proc"
)

// SlowExit is how long an agent may take to exit after stdin EOF before
// probe calls it slow and, when SIGTERM ends it sooner, suggests
// shutdown: term: when it took longer in every run measured, and longer
// than slowFactor times that run's initialize, so that a machine too busy
// to answer initialize quickly makes no exit slow.
const SlowExit = 500 * time.Millisecond

// slowFactor is how many times its run's initialize an exit must take to
// be slow.
const slowFactor = 3

// Lifecycle is how the agent starts and ends.
type Lifecycle struct {
	// Measured: a run ran its whole script; false: nothing below was
	// measured.
	Measured   bool    `json:"measured"`
	Initialize Millis  `json:"initializeMs"` // the initialize step, median over the runs
	NewSession Millis  `json:"newSessionMs"` // the first newSession step, median
	EOF        Exit    `json:"eof"`          // after stdin EOF
	Term       Exit    `json:"term"`         // after SIGTERM
	Group      Millis  `json:"groupMs"`      // the longest the process group took to empty after the agent exited
	Leftovers  int     `json:"leftovers"`    // runs whose group still had members then (the harness killed them)
	Suggest    Setting `json:"suggest"`
	// Problem is what no setting fixes (it ignores SIGTERM, it leaves
	// processes behind); "": none.
	Problem string `json:"problem"`
}

// Exit is how the agent ended at one kind of shutdown.
type Exit struct {
	Measured bool   `json:"measured"` // a run ended this way
	Runs     int    `json:"runs"`     // how many
	Exited   bool   `json:"exited"`   // it exited by itself
	After    Millis `json:"afterMs"`  // median time to exit, when it did
	// Slow: in every run, longer than SlowExit and than slowFactor times
	// the run's initialize (stdin EOF only).
	Slow bool `json:"slow"`
}

// Millis is a duration shown in milliseconds (JSON: a number).
type Millis time.Duration

// MarshalJSON is the duration in milliseconds.
func (m Millis) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(float64(m)/float64(time.Millisecond), 'f', 1, 64)), nil
}

func (m Millis) String() string { return fmtDuration(time.Duration(m)) }

func fmtDuration(d time.Duration) string {
	if d >= time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 0, 64) + " ms"
}

func lifecycle(in Input) Lifecycle {
	l := Lifecycle{Initialize: stepMedian(in.Runs, "initialize"), NewSession: stepMedian(in.Runs, "newSession"), Measured: len(in.Runs) > 0}
	eofRuns, termRuns := in.Runs, in.Others
	if in.Term {
		eofRuns, termRuns = in.Others, in.Runs
	}
	l.EOF, l.Term = eofExit(eofRuns), termExit(termRuns)
	for _, r := range in.Runs {
		l.Group = max(l.Group, Millis(r.Shutdown.Group))
		if r.Shutdown.Leftovers {
			l.Leftovers++
		}
	}
	l.Suggest, l.Problem = shutdownAdvice(l, in.Term)
	return l
}

// shutdownAdvice suggests shutdown: term for an agent that ignores stdin
// EOF, or exits slowly on it in every run (Exit.Slow) while SIGTERM ends
// it sooner, and names what no setting fixes.
func shutdownAdvice(l Lifecycle, term bool) (Setting, string) {
	var problem string
	switch {
	case l.Term.Measured && !l.Term.Exited:
		problem = "it ignores SIGTERM: the harness kills it with SIGKILL"
	case l.Leftovers > 0:
		problem = fmt.Sprintf("processes of its group outlived it by more than %s in %d run(s): the harness killed them", fmtDuration(groupSettle), l.Leftovers)
	}
	if term || !l.EOF.Measured {
		return Setting{}, problem
	}
	termBetter := l.Term.Measured && l.Term.Exited && (!l.EOF.Exited || l.Term.After < l.EOF.After/2)
	if (!l.EOF.Exited || l.EOF.Slow) && termBetter {
		return Setting{Key: "agent.shutdown", Item: "term"}, problem
	}
	if !l.EOF.Exited && problem == "" {
		problem = "it exits neither on stdin EOF nor on SIGTERM"
	}
	return Setting{}, problem
}

// groupSettle is how long the harness lets the group empty by itself.
const groupSettle = 500 * time.Millisecond

// eofExit is how runs that closed stdin and waited ended.
func eofExit(runs []Run) Exit {
	e := Exit{Measured: len(runs) > 0, Runs: len(runs), Slow: len(runs) > 0}
	var times []time.Duration
	for _, r := range runs {
		if r.Shutdown.How != proc.ExitedOnEOF.String() {
			return Exit{Measured: true, Runs: len(runs)} // it needed SIGTERM in at least one run
		}
		times = append(times, r.Shutdown.EOF)
		init := stepDuration(r, "initialize")
		e.Slow = e.Slow && r.Shutdown.EOF > SlowExit && r.Shutdown.EOF > slowFactor*init
	}
	if e.Measured {
		e.Exited, e.After = true, Millis(median(times))
	}
	return e
}

// termExit is how runs that sent SIGTERM at stdin EOF ended.
func termExit(runs []Run) Exit {
	e := Exit{Measured: len(runs) > 0, Runs: len(runs)}
	var times []time.Duration
	for _, r := range runs {
		switch r.Shutdown.How {
		case proc.Terminated.String():
			times = append(times, r.Shutdown.Term)
		case proc.ExitedOnEOF.String():
			times = append(times, r.Shutdown.EOF) // it beat the signal
		default:
			return Exit{Measured: true, Runs: len(runs)}
		}
	}
	if e.Measured {
		e.Exited, e.After = true, Millis(median(times))
	}
	return e
}

func stepMedian(runs []Run, op string) Millis {
	var times []time.Duration
	for _, r := range runs {
		if d := stepDuration(r, op); d > 0 {
			times = append(times, d)
		}
	}
	return Millis(median(times))
}

// stepDuration is how long the run's first step of op took; 0: none.
func stepDuration(r Run, op string) time.Duration {
	for _, s := range r.Steps {
		if s.Op == op {
			return s.End - s.Start
		}
	}
	return 0
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
