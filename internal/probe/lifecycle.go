package probe

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/acpsnap/acpsnap/internal/shutdown"
)

// SlowExit is how long an agent may take to exit after stdin EOF before
// probe calls it slow and, when SIGTERM ends it sooner, suggests
// shutdown: term.
const SlowExit = 500 * time.Millisecond

// Lifecycle is how the agent starts and ends.
type Lifecycle struct {
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
	Exited   bool   `json:"exited"`   // it exited by itself
	After    Millis `json:"afterMs"`  // median time to exit, when it did
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
	l := Lifecycle{Initialize: stepMedian(in.Runs, "initialize"), NewSession: stepMedian(in.Runs, "newSession")}
	eofRuns, termRuns := in.Runs, []Run(nil)
	if in.Term {
		eofRuns, termRuns = nil, in.Runs
	}
	if in.Other != nil {
		if in.Term {
			eofRuns = []Run{*in.Other}
		} else {
			termRuns = []Run{*in.Other}
		}
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
// EOF or exits slowly on it while SIGTERM ends it sooner, and names what
// no setting fixes.
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
	if (!l.EOF.Exited || time.Duration(l.EOF.After) > SlowExit) && termBetter {
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
	var e Exit
	var times []time.Duration
	for _, r := range runs {
		e.Measured = true
		if r.Shutdown.How != shutdown.Exited {
			return Exit{Measured: true} // it needed SIGTERM in at least one run
		}
		times = append(times, r.Shutdown.EOF)
	}
	if e.Measured {
		e.Exited, e.After = true, Millis(median(times))
	}
	return e
}

// termExit is how runs that sent SIGTERM at stdin EOF ended.
func termExit(runs []Run) Exit {
	var e Exit
	var times []time.Duration
	for _, r := range runs {
		e.Measured = true
		switch r.Shutdown.How {
		case shutdown.Terminated:
			times = append(times, r.Shutdown.Term)
		case shutdown.Exited:
			times = append(times, r.Shutdown.EOF) // it beat the signal
		default:
			return Exit{Measured: true}
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
		for _, s := range r.Steps {
			if s.Op == op {
				times = append(times, s.End-s.Start)
				break
			}
		}
	}
	return Millis(median(times))
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
