//go:build !linux

package harness

import "time"

// becomeSubreaper does nothing where there is no child subreaper.
func becomeSubreaper() {}

func track(int)   {}
func untrack(int) {}

// escapees finds nothing where /proc and the subreaper are missing:
// processes that left the agent's process group may outlive the run.
func escapees(string, time.Time) []string { return nil }
