package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/acpsnap/acpsnap/internal/check"
)

// PinChanges groups the outcomes that failed on the same change of the
// corpus's pins (check.Outcome.PinDrift), so that a change every scenario shares
// (one word of the system prompt) is shown once, with the number of
// scenarios it affects and one command that accepts it for all of them.
// The zero value is ready; it is safe for concurrent use.
type PinChanges struct {
	mu     sync.Mutex
	groups []*PinChange
}

// PinChange is one change of the pins and the scenarios it failed.
type PinChange struct {
	Files []string // the pin files that changed
	Diff  string   // their diff (check.Outcome.PinDrift)
	Names []string // the scenarios, in order of arrival
}

// Add records o and returns the scenario that first showed the same change
// ("" when o is the first, or failed on no pin change).
func (p *PinChanges) Add(o check.Outcome) (first string) {
	if o.PinDrift == "" {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range p.groups {
		if g.Diff == o.PinDrift {
			g.Names = append(g.Names, o.Name)
			return g.Names[0]
		}
	}
	p.groups = append(p.groups, &PinChange{Files: o.PinFiles, Diff: o.PinDrift, Names: []string{o.Name}})
	return ""
}

// Changes are the groups, in order of their first scenario's arrival.
func (p *PinChanges) Changes() []PinChange {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PinChange, len(p.groups))
	for i, g := range p.groups {
		out[i] = *g
	}
	return out
}

// String is "pins/system-4796ef22d6bf.md changed; 6 scenario(s) affected".
func (c PinChange) String() string {
	return fmt.Sprintf("%s changed; %d scenario(s) affected", strings.Join(c.Files, " and "), len(c.Names))
}

// Pattern is the -run pattern that selects the change's scenarios and no
// other, in name order: ^(a|b)$.
func (c PinChange) Pattern() string {
	q := make([]string, len(c.Names))
	for i, n := range slices.Sorted(slices.Values(c.Names)) {
		q[i] = regexp.QuoteMeta(n)
	}
	if len(q) == 1 {
		return "^" + q[0] + "$"
	}
	return "^(" + strings.Join(q, "|") + ")$"
}

// SamePinChange is the reason shown for a scenario whose pin change was
// shown with the scenario first.
func SamePinChange(o check.Outcome, first string) string {
	return fmt.Sprintf("the same change of %s as %s (its diff is shown there)", strings.Join(o.PinFiles, " and "), first)
}
