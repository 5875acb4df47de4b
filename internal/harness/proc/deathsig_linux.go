package proc

import (
	"os"
	"syscall"
)

// DieWithHarness makes a process started with attr get SIGKILL when the
// harness dies, however it dies (PR_SET_PDEATHSIG): a SIGKILLed acpsnap
// leaves no agent or terminal running. Descendants that left the process
// group are not covered; the next run reaps only the roots.
//
// With ownUserNS it also starts in a user namespace of its own that maps
// only the harness's user to itself: the process and its descendants keep
// their ids and their files, hold no capability outside that namespace,
// and so cannot read /proc/<pid>/environ or the memory of any process
// outside it (the harness, another agent, a terminal), whatever the
// harness's own privileges in its namespace.
func DieWithHarness(attr *syscall.SysProcAttr, ownUserNS bool) *syscall.SysProcAttr {
	attr.Pdeathsig = syscall.SIGKILL
	if ownUserNS {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	}
	return attr
}
