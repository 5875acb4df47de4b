//go:build !linux

package harness

import "time"

// becomeSubreaper does nothing where there is no child subreaper.
func becomeSubreaper() {}

func untrack(int) {}

// startTracked runs start: there is no scan of escapees to keep away.
func startTracked(start func() (int, error)) error {
	_, err := start()
	return err
}

// escapees finds nothing where /proc and the subreaper are missing:
// processes that left the agent's process group may outlive the run.
func escapees(string, time.Time) []string { return nil }
