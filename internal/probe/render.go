package probe

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the report for a person: each finding with its
// setting, then every setting as one acpsnap.yml snippet, then the verdict.
func (r Report) WriteText(w io.Writer) {
	if len(r.Scenarios) > 1 {
		fmt.Fprintf(w, "probed %d scenarios: %s\n", len(r.Scenarios), strings.Join(r.Scenarios, ", "))
	}
	r.writeVaries(w)
	r.writeDates(w)
	r.writeRetries(w)
	r.writeExtra(w)
	r.writeNetwork(w)
	r.writeLifecycle(w)
	if len(r.Files) > 0 {
		fmt.Fprintf(w, "files written in HOME, outside the cwd (candidates for home/ seeding):\n")
		for _, f := range r.Files {
			if strings.HasSuffix(f.Path, "/") {
				fmt.Fprintf(w, "  %s (%d files, %d bytes)\n", f.Path, f.Files, f.Size)
			} else {
				fmt.Fprintf(w, "  %s (%d bytes)\n", f.Path, f.Size)
			}
		}
	}
	if len(r.Errors) > 0 {
		fmt.Fprintf(w, "runs that failed:\n")
		for _, e := range r.Errors {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(e, "\n", "\n  "))
		}
	}
	if snippet := r.Snippet(); snippet != "" {
		fmt.Fprintf(w, "paste into acpsnap.yml (merge with what is there):\n%s", indent(snippet, "  "))
	}
	fmt.Fprintln(w, r.verdict())
}

func (r Report) writeVaries(w io.Writer) {
	runs := fmt.Sprintf("%d runs", r.Runs)
	switch {
	case r.Compared == 0:
		fmt.Fprintf(w, "what varies: not compared: none of the %d runs ran its whole script (see the runs that failed)\n", r.Runs)
		return
	case r.Compared < r.Runs:
		runs = fmt.Sprintf("%d of %d runs: the others stopped at a failed step", r.Compared, r.Runs)
	}
	if len(r.Varies) == 0 {
		fmt.Fprintf(w, "what varies: nothing, in %s\n", runs)
		return
	}
	fmt.Fprintf(w, "what varies (%d, in %s):\n", len(r.Varies), runs)
	for _, v := range r.Varies {
		writeFinding(w, v, func(i int) string { return fmt.Sprintf("run %d: ", i+1) })
	}
}

// writeFinding prints one value with what it was in each run (each line
// after label(i)) and its setting.
func writeFinding(w io.Writer, v Variance, label func(i int) string) {
	scenario := ""
	if v.Scenario != "" {
		scenario = v.Scenario + ": "
	}
	fmt.Fprintf(w, "  %s%s\n", scenario, strings.TrimSpace(v.Where+" "+v.At+" "+v.Path))
	for i, val := range v.Values {
		fmt.Fprintf(w, "    %s%s\n", label(i), val)
	}
	if v.Suggest.Key != "" {
		fmt.Fprintf(w, "    %s: %s\n", v.Suggest.Key, v.Suggest.Item)
	}
}

func (r Report) writeDates(w io.Writer) {
	if len(r.Dates) == 0 {
		return
	}
	fmt.Fprintf(w, "today's date or the time now (the same in every run today; the fixtures break tomorrow) (%d):\n", len(r.Dates))
	for _, v := range r.Dates {
		writeFinding(w, v, func(int) string { return "" })
	}
}

func (r Report) writeRetries(w io.Writer) {
	if len(r.Retries) == 0 {
		return
	}
	fmt.Fprintf(w, "error calls the agent retried (%d):\n", len(r.Retries))
	for _, x := range r.Retries {
		scenario := ""
		if x.Scenario != "" {
			scenario = x.Scenario + ", "
		}
		fmt.Fprintf(w, "  %srun %d: call %d repeats call %d right after its status %d\n", scenario, x.Run, x.Call, x.Call-1, x.Status)
	}
	fmt.Fprintf(w, "  %s\n", RetryAdvice)
}

func (r Report) writeExtra(w io.Writer) {
	if len(r.Extra) == 0 {
		if r.Compared > 0 {
			fmt.Fprintln(w, "model calls beyond the script: none")
		}
		return
	}
	fmt.Fprintf(w, "model calls beyond the script (%d):\n", len(r.Extra))
	for _, x := range r.Extra {
		concurrent, scenario := "", ""
		if x.WithTurn {
			concurrent = ", concurrent with a call of the turn"
		}
		if x.Scenario != "" {
			scenario = x.Scenario + ", "
		}
		fmt.Fprintf(w, "  %srun %d, call %d: %s, %s%s\n    %s\n", scenario, x.Run, x.Position, x.Path, x.When, concurrent, x.Summary)
	}
}

func (r Report) writeNetwork(w io.Writer) {
	n := r.Network
	if len(n.Lookups)+len(n.Connects) == 0 {
		fmt.Fprintln(w, "network beyond the model endpoint: none")
	} else {
		fmt.Fprintln(w, "network beyond the model endpoint (all refused):")
		writeCounts(w, n.Lookups, n.Connects)
		fmt.Fprintln(w, "  one that no setting stops: acknowledge it in acpsnap.yml, probe: { expectHosts: [HOST, …] }")
	}
	if len(n.ExpectedLookups)+len(n.ExpectedConnects)+len(n.Unseen) == 0 {
		return
	}
	fmt.Fprintln(w, "network acknowledged by probe.expectHosts (refused, not counted):")
	writeCounts(w, n.ExpectedLookups, n.ExpectedConnects)
	for _, h := range n.Unseen {
		fmt.Fprintf(w, "  %s: not tried in any run\n", h)
	}
}

// writeCounts prints lookups, then connects, one per line with the count.
func writeCounts(w io.Writer, lookups, connects []Count) {
	for _, part := range []struct {
		title string
		cs    []Count
	}{{"lookup", lookups}, {"connect", connects}} {
		for _, c := range part.cs {
			fmt.Fprintf(w, "  %s %s (%d×)\n", part.title, c.Key, c.N)
		}
	}
}

func (r Report) writeLifecycle(w io.Writer) {
	l := r.Lifecycle
	if !l.Measured {
		fmt.Fprintln(w, "lifecycle: not measured: no run ran its whole script")
		return
	}
	fmt.Fprintf(w, "lifecycle: initialize %s, session/new %s (medians)\n", l.Initialize, l.NewSession)
	for _, e := range []struct {
		what string
		x    Exit
	}{{"stdin EOF", l.EOF}, {"SIGTERM", l.Term}} {
		switch {
		case !e.x.Measured:
		case !e.x.Exited:
			fmt.Fprintf(w, "  after %s: does not exit\n", e.what)
		default:
			slow := ""
			switch {
			case e.x.Slow:
				slow = fmt.Sprintf(" (slow: over %s and %d× its initialize in every run)", fmtDuration(SlowExit), slowFactor)
			case e.what == "stdin EOF" && e.x.After > Millis(SlowExit):
				slow = " (not slow in every run, or not beside its initialize: the machine was busy)"
			}
			fmt.Fprintf(w, "  after %s: exits in %s%s, the median of %d run(s)\n", e.what, e.x.After, slow, e.x.Runs)
		}
	}
	fmt.Fprintf(w, "  its process group emptied within %s of its exit", l.Group)
	if l.Leftovers > 0 {
		fmt.Fprintf(w, "; processes left behind in %d run(s)", l.Leftovers)
	}
	fmt.Fprintln(w)
	if l.Problem != "" {
		fmt.Fprintf(w, "  problem: %s\n", l.Problem)
	}
	if l.Suggest.Key != "" {
		fmt.Fprintf(w, "  %s: %s\n", l.Suggest.Key, l.Suggest.Item)
	}
}

// Snippet is every suggested setting as one piece of acpsnap.yml ("":
// none).
func (r Report) Snippet() string {
	var shutdown string
	var ignore, scrub, floating []string
	add := func(s Setting) {
		switch s.Key {
		case "agent.shutdown":
			shutdown = s.Item
		case "model.ignore":
			ignore = appendNew(ignore, s.Item)
		case "scrub":
			scrub = appendNew(scrub, s.Item)
		case "floating":
			floating = appendNew(floating, s.Item)
		}
	}
	for _, v := range append(r.Varies, r.Dates...) {
		add(v.Suggest)
	}
	add(r.Lifecycle.Suggest)
	var b strings.Builder
	if shutdown != "" {
		fmt.Fprintf(&b, "agent:\n  shutdown: %s\n", shutdown)
	}
	if len(ignore) > 0 {
		fmt.Fprintf(&b, "model:\n  ignore: [%s]\n", strings.Join(ignore, ", "))
	}
	if len(scrub) > 0 {
		b.WriteString("scrub:\n")
		for _, s := range scrub {
			fmt.Fprintf(&b, "  - %s\n", s)
		}
	}
	if len(floating) > 0 {
		fmt.Fprintf(&b, "floating: [%s]\n", strings.Join(floating, ", "))
	}
	return b.String()
}

func appendNew(s []string, v string) []string {
	if contains(s, v) {
		return s
	}
	return append(s, v)
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+prefix) + "\n"
}

// verdict is the closing line.
func (r Report) verdict() string {
	if r.Clean {
		network := "no network attempt"
		if len(r.Network.ExpectedLookups)+len(r.Network.ExpectedConnects) > 0 {
			network = "no network attempt beyond the expected hosts"
		}
		return "clean: nothing varies, no model call beyond the script, " + network + ", a clean exit"
	}
	var parts []string
	if r.Compared == 0 {
		parts = append(parts, "no run ran its whole script")
	}
	if n := len(r.Varies); n > 0 {
		parts = append(parts, fmt.Sprintf("%d value(s) vary", n))
	}
	if n := len(r.Dates); n > 0 {
		parts = append(parts, fmt.Sprintf("%d date(s) or time(s)", n))
	}
	if n := len(r.Retries); n > 0 {
		parts = append(parts, fmt.Sprintf("%d retried error call(s)", n))
	}
	if n := len(r.Extra); n > 0 {
		parts = append(parts, fmt.Sprintf("%d model call(s) beyond the script", n))
	}
	if n := len(r.Network.Lookups) + len(r.Network.Connects); n > 0 {
		parts = append(parts, fmt.Sprintf("%d host(s) or address(es) tried", n))
	}
	if r.Lifecycle.Suggest.Key != "" || r.Lifecycle.Problem != "" || r.Lifecycle.Leftovers > 0 {
		parts = append(parts, "its shutdown")
	}
	if n := len(r.Errors); n > 0 {
		parts = append(parts, fmt.Sprintf("%d run error(s)", n))
	}
	return "not clean: " + strings.Join(parts, ", ")
}
