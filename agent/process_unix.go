//go:build unix

package agent

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a new process group and makes context
// cancellation kill the whole group, not just the shell.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		killProcessGroup(cmd.Process.Pid)
		return nil
	}
}

// killProcessGroup sends SIGKILL to the process group pgid (errors, such
// as an already empty group, are ignored).
func killProcessGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// exitDetails returns the exit code, or the name of the signal that ended
// the process.
func exitDetails(ps *os.ProcessState) (int, string) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 0, ws.Signal().String()
	}
	return ps.ExitCode(), ""
}
