package proc

import "syscall"

// DieWithHarness makes a process started with attr get SIGKILL when the
// harness dies, however it dies (PR_SET_PDEATHSIG): a SIGKILLed acpsnap
// leaves no agent or terminal running. Descendants that left the process
// group are not covered; the next run reaps only the roots.
func DieWithHarness(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	attr.Pdeathsig = syscall.SIGKILL
	return attr
}
