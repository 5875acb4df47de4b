// Package shutdown names how an agent ended at the harness's shutdown
// (harness.Shutdown.How): the words the harness reports and acpsnap probe
// reads back, written here once.
package shutdown

// The endings, in the order the harness tries them.
const (
	Exited     = "exited"                                     // on stdin EOF, within its grace
	Terminated = "sent SIGTERM"                               // needed SIGTERM
	Killed     = "killed with SIGKILL after ignoring SIGTERM" // ignored SIGTERM
)
