package proc

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// The watchdog outlives the harness on purpose. A SIGKILLed acpsnap runs
// nothing more, and PR_SET_PDEATHSIG reaches only the processes it started
// itself; an agent's own children (an MCP server, a tool's shell) would
// live on. So the first process the harness starts also starts a small
// shell that reads the process groups of the agents and terminals
// running, one line each, from a pipe whose write end only the harness
// holds. When the harness ends, however it ends, the pipe reads EOF and the
// shell kills every group still registered, then exits. It ignores the
// terminal's signals (its own process group, traps), so Ctrl-C reaches
// the harness, which ends its runs itself.
const watchdogScript = `trap '' INT TERM HUP QUIT PIPE
g=' '
while read -r op n; do
	case $op in
	w) g="$g$n ";;
	f) k=' '; for x in $g; do [ "$x" = "$n" ] || k="$k$x "; done; g=$k;;
	esac
done
for x in $g; do kill -s KILL -- "-$x" 2>/dev/null; done
`

var watchdog struct {
	once sync.Once
	mu   sync.Mutex
	w    *os.File // the pipe to the shell; nil: none could start
}

// watch registers process group pgid with the watchdog (started on first
// use): it is killed if the harness dies before it forgets the group.
func watch(pgid int) { tellWatchdog("w", pgid) }

// Forget tells the watchdog that process group pgid is gone (the harness
// killed what was left of it), so that a later group with the same id is
// never killed for it.
func Forget(pgid int) { tellWatchdog("f", pgid) }

func tellWatchdog(op string, pgid int) {
	watchdog.once.Do(startWatchdog)
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.w != nil {
		fmt.Fprintf(watchdog.w, "%s %d\n", op, pgid) // one write under PIPE_BUF: atomic
	}
}

// startWatchdog starts the shell, in its own process group, with no
// environment of the run, no parent-death signal, and the pipe as stdin.
func startWatchdog() {
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", watchdogScript)
	cmd.Stdin, cmd.Dir, cmd.Env = r, "/", []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return
	}
	watchdog.w = w
	// Escapees passes it by, as it does the runs' own processes: it is no
	// run's, and outlives them all.
	pid := cmd.Process.Pid
	started.Store(pid, true)
	go func() { // reaps it should it end first
		cmd.Wait()
		Untrack(pid)
	}()
}
