//go:build !linux

package proc

// watch does nothing here: without /proc and PR_SET_PDEATHSIG the harness
// has no watchdog, and what an agent started may outlive a killed acpsnap.
func watch(int) {}

// Forget does nothing here (see watch).
func Forget(int) {}
