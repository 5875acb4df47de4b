package frontend

import (
	"fmt"
	"strings"
)

// CI reports whether a CI variable's value means "running in CI":
// anything but "", "0" and "false", in any case.
func CI(value string) bool {
	v := strings.TrimSpace(value)
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

// Write is what one command, or one go test run, would write to a corpus.
type Write struct {
	// What names it in the refusal: "update", "new -model", "accept".
	What string
	// Fixtures: it writes fixtures or scenarios (a writing mode, new,
	// init, capture, accept, review, reject).
	Fixtures bool
	// Pending: it writes <file>.new files for review.
	Pending bool
	// ForceFlag is the flag that forces a write in CI, as the user types
	// it: "-force", or "-acpsnap.force" under go test.
	ForceFlag string
}

// WriteRefused is the CI write policy of both front ends, decided here
// once: with CI set (ci is the variable's value), a write of fixtures is
// refused unless forced, and pending files are refused even when forced,
// since a person reviews them and CI never does. nil: it may write.
func WriteRefused(w Write, ci string, force bool) error {
	switch {
	case !CI(ci):
		return nil
	case w.Pending:
		return fmt.Errorf("%s writes pending files and CI is set: refusing, even with %s (CI never writes them)", w.What, w.ForceFlag)
	case w.Fixtures && !force:
		return fmt.Errorf("%s writes fixtures and CI is set: refusing (pass %s to write anyway)", w.What, w.ForceFlag)
	}
	return nil
}
