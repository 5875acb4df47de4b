package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/acpsnap/acpsnap/internal/check"
)

// Changes groups the failed outcomes that show one change, so that a
// change many scenarios share is shown once: in full with the first
// scenario that shows it, as "the same change … as" that scenario for the
// others, and once more at the end with the number of scenarios and the
// commands that accept it for all of them. A change is one of the
// model's input (check.Outcome.PinDrift: a pin, a request drift) or of the
// fixtures' lines (check.Outcome.Change: the lines each differing file lost and
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
	// accepts the change for each (its check.Outcome.Accept).
	Names []string
	Modes []check.Mode

	key string
}

// Add records o and returns the scenario that first showed the same change
// ("" when o is the first, or shows no change that can be shared).
func (c *Changes) Add(o check.Outcome) (first string) {
	key, input, files := o.PinDrift, true, o.PinFiles
	if key == "" {
		key, input, files = o.Change, false, o.ChangeFiles
	}
	if key == "" || o.Status != check.Failed {
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
	c.groups = append(c.groups, &Change{Files: files, Input: input, Names: []string{o.Name}, Modes: []check.Mode{o.Accept}, key: key})
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
	Mode    check.Mode
	Pattern string
}

// Commands are the commands that accept the change for every scenario it
// failed, one per mode those need (refresh for the authored ones, record
// for the live ones, both when they are mixed), in the order update,
// refresh, record. A scenario no mode accepts is left out.
func (c Change) Commands() []Command {
	var out []Command
	for _, mode := range []check.Mode{check.Update, check.Refresh, check.Record} {
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
func SameChange(o check.Outcome, first string) (reason, rest string) {
	if o.PinDrift != "" {
		return SamePinChange(o, first), strings.TrimPrefix(o.Diff, o.PinDrift)
	}
	return fmt.Sprintf("the same change of %s as %s (its diff is shown there)", strings.Join(o.ChangeFiles, " and "), first), ""
}
