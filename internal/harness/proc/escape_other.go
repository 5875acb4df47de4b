//go:build !linux

package proc

import "time"

// becomeSubreaper does nothing where there is no child subreaper.
func becomeSubreaper() {}

// Untrack does nothing: nothing is tracked.
func Untrack(int) {}

// StartTracked runs start: there is no scan of Escapees to keep away.
func StartTracked(start func() (int, error)) error {
	pid, err := start()
	if err == nil {
		watch(pid)
	}
	return err
}

// Escapees finds nothing where /proc and the subreaper are missing:
// processes that left the agent's process group may outlive the run.
func Escapees(string, time.Time) []string { return nil }
