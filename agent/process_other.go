//go:build !unix

package agent

import (
	"os"
	"os/exec"
)

// ownProcessGroup is a no-op where process groups do not exist; context
// cancellation kills the shell only.
func ownProcessGroup(cmd *exec.Cmd) {}

func killProcessGroup(pgid int) {}

func exitDetails(ps *os.ProcessState) (int, string) { return ps.ExitCode(), "" }
