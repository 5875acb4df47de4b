package check

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/acpsnap/acpsnap/internal/textdiff"
	"github.com/acpsnap/acpsnap/scenario"
)

// Changes groups the failed outcomes that show one change, so that a
// change many scenarios share is shown once: in full with the first
// scenario that shows it, as "the same change … as" that scenario for the
// others, and once more at the end with the number of scenarios and the
// commands that accept it for all of them. A change is one of the
// model's input (Outcome.PinDrift: a pin, a request drift) or of the
// fixtures' lines (Outcome.Change: the lines each differing file lost and
// gained, wherever they are: one thought chunk more in every prompt). The
// zero value is ready; it is safe for concurrent use.
type Changes struct {
	mu     sync.Mutex
	groups []*Change
}

// Change is one change and the scenarios it failed.
type Change struct {
	// Files are what changed: pin files or a request's JSON paths (a
	// change of the model's input), or fixture files.
	Files []string
	// Input: a change of the model's input; else of the fixtures' lines.
	Input bool
	// Names are the scenarios, in order of arrival; Modes the mode that
	// accepts the change for each (its Outcome.Accept).
	Names []string
	Modes []Mode

	key string
}

// Add records o and returns the scenario that first showed the same change
// ("" when o is the first, or shows no change that can be shared).
func (c *Changes) Add(o Outcome) (first string) {
	key, input, files := o.PinDrift, true, o.PinFiles
	if key == "" {
		key, input, files = o.Change, false, o.ChangeFiles
	}
	if key == "" || o.Status != Failed {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, g := range c.groups {
		if g.key == key && g.Input == input {
			g.Names, g.Modes = append(g.Names, o.Name), append(g.Modes, o.Accept)
			return g.Names[0]
		}
	}
	c.groups = append(c.groups, &Change{Files: files, Input: input, Names: []string{o.Name}, Modes: []Mode{o.Accept}, key: key})
	return ""
}

// Shared are the changes more than one scenario showed, in order of their
// first scenario's arrival.
func (c *Changes) Shared() []Change {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Change
	for _, g := range c.groups {
		if len(g.Names) > 1 {
			out = append(out, *g)
		}
	}
	return out
}

// String is "pins/agent.system.md changed; 6 scenario(s) affected", or
// "stdout.expected.jsonl changed the same way in 9 scenarios".
func (c Change) String() string {
	if c.Input {
		return fmt.Sprintf("%s changed; %d scenario(s) affected", strings.Join(c.Files, " and "), len(c.Names))
	}
	return fmt.Sprintf("%s changed the same way in %d scenarios", strings.Join(c.Files, " and "), len(c.Names))
}

// Command is one command of a change's acceptance: the mode, and the -run
// pattern of the scenarios it accepts.
type Command struct {
	Mode    Mode
	Pattern string
}

// Commands are the commands that accept the change for every scenario it
// failed, one per mode those need (refresh for the authored ones, record
// for the live ones, both when they are mixed), in the order update,
// refresh, record. A scenario no mode accepts is left out.
func (c Change) Commands() []Command {
	var out []Command
	for _, mode := range []Mode{Update, Refresh, Record} {
		var names []string
		for i, n := range c.Names {
			if c.Modes[i] == mode {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			out = append(out, Command{mode, namesPattern(names)})
		}
	}
	return out
}

// namesPattern is the -run pattern that selects the scenarios names and no
// other, in name order: ^(a|b)$.
func namesPattern(names []string) string {
	q := make([]string, len(names))
	for i, n := range slices.Sorted(slices.Values(names)) {
		q[i] = regexp.QuoteMeta(n)
	}
	if len(q) == 1 {
		return "^" + q[0] + "$"
	}
	return "^(" + strings.Join(q, "|") + ")$"
}

// SameChange is the reason shown for a scenario whose change was shown
// with the scenario first, and what of its diff is left to show: for a
// change of the pins of a native agent, the rest of its diff; else none.
func SameChange(o Outcome, first string) (reason, rest string) {
	if o.PinDrift != "" {
		return SamePinChange(o, first), strings.TrimPrefix(o.Diff, o.PinDrift)
	}
	return fmt.Sprintf("the same change of %s as %s (its diff is shown there)", strings.Join(o.ChangeFiles, " and "), first), ""
}

// lineChange is the change the differing files show, as a key two
// scenarios share when they changed the same way: for each file, the
// lines it lost and the lines it gained, each set once and sorted,
// wherever they are. files: the differing files' names. "" when a file
// differs in nothing but order.
func lineChange(want, got *scenario.Transcript, diffs []fileDiff) (key string, files []string) {
	var b strings.Builder
	for _, d := range diffs {
		w, g := fileOf(want, d.name), fileOf(got, d.name)
		lost, gained := changedLines(w, g)
		if len(lost)+len(gained) == 0 {
			return "", nil
		}
		fmt.Fprintf(&b, "%s\n", d.name)
		for _, l := range lost {
			fmt.Fprintf(&b, "-%s\n", l)
		}
		for _, l := range gained {
			fmt.Fprintf(&b, "+%s\n", l)
		}
		files = append(files, d.name)
	}
	return b.String(), files
}

// fileOf is the content of the fixture file name in t.
func fileOf(t *scenario.Transcript, name string) []byte {
	if name == scenario.StdoutFile {
		return t.Stdout
	}
	for i, l := range t.Logs {
		if scenario.LogName(i) == name {
			return l
		}
	}
	return nil
}

// changedLines are the distinct lines an edit script from want to got
// deletes and inserts, sorted.
func changedLines(want, got []byte) (lost, gained []string) {
	w, g := splitLines(want), splitLines(got)
	seen := map[string]bool{}
	for _, e := range textdiff.Seq(len(w), len(g), func(i, j int) bool { return bytes.Equal(w[i], g[j]) }) {
		switch {
		case e.Kind == '-' && !seen["-"+string(w[e.A])]:
			seen["-"+string(w[e.A])] = true
			lost = append(lost, string(w[e.A]))
		case e.Kind == '+' && !seen["+"+string(g[e.B])]:
			seen["+"+string(g[e.B])] = true
			gained = append(gained, string(g[e.B]))
		}
	}
	slices.Sort(lost)
	slices.Sort(gained)
	return lost, gained
}

// splitLines are the lines of b, without their "\n", as slices of b: a
// large fixture is not copied to be compared.
func splitLines(b []byte) [][]byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) == 0 {
		return nil
	}
	return bytes.Split(b, []byte("\n"))
}
