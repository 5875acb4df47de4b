package cli

import "golang.org/x/sys/unix"

// hideEnviron makes this process non-dumpable (PR_SET_DUMPABLE 0): another
// process of the same user, the agent among them, can then no longer read
// /proc/<acpsnap>/environ, where a record run's key is, nor ptrace it. Root
// (CAP_SYS_PTRACE) still can: record as a user. The agent is exec'd, so it
// is dumpable again.
func hideEnviron() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
