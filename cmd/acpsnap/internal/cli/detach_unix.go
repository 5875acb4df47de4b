//go:build unix

package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// canDetach: a capture's work runs in a worker (detached).
const canDetach = true

// doneFD is the worker's end of the pipe on which it reports its pid and,
// when it has written the scenario, its exit code.
const doneFD = 3

// detached runs argv (this process's command line, argv[0] as it was, so
// that a binary that dispatches on its name is the same command again) as
// a worker that is not this process's descendant: a launcher starts it in
// a session of its own and exits at once. The worker has this process's
// stdin, stdout and stderr; this process waits for its exit code on a
// pipe and passes on the signals that stop a run. A client that stops its
// agent server by killing the process it started, or every descendant of
// it (acpx does, a second after closing its stdin; Zed kills the process),
// then ends only this process: the worker sees the client's stream end,
// as when the client disconnects, and still writes what it captured.
func (e *env) detached(argv []string) int {
	exe, err := os.Executable()
	if err != nil {
		return e.exit(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return e.exit(err)
	}
	defer r.Close()
	launcher := &exec.Cmd{Path: exe, Args: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		ExtraFiles: []*os.File{w}, Env: append(os.Environ(), launcherEnv+"=1")}
	err = launcher.Run()
	w.Close()
	if err != nil {
		return e.exit(fmt.Errorf("capture: start its worker: %w", err))
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	lines := make(chan string)
	go func() {
		s := bufio.NewScanner(r)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	pid := 0
	for {
		select {
		case s := <-sigs:
			if pid > 0 {
				syscall.Kill(pid, s.(syscall.Signal))
			}
		case l, ok := <-lines:
			if !ok {
				return e.exit(fmt.Errorf("capture: its worker (pid %d) ended without an exit code", pid))
			}
			if v, found := strings.CutPrefix(l, "pid "); found {
				pid, _ = strconv.Atoi(v)
			} else if v, found := strings.CutPrefix(l, "exit "); found {
				code, _ := strconv.Atoi(v)
				return code
			}
		}
	}
}

// startWorker is the launcher's whole life: start the worker in a session of
// its own, report its pid, and exit, so that the worker's parent is gone
// before the client looks for its agent's descendants.
func startWorker(argv []string) int {
	done := os.NewFile(doneFD, "done")
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "acpsnap: capture:", err)
		return ExitInternal
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, launcherEnv+"=") {
			env = append(env, kv)
		}
	}
	worker := &exec.Cmd{Path: exe, Args: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		ExtraFiles: []*os.File{done}, Env: append(env, workerEnv+"=1"), SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := worker.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "acpsnap: capture: start its worker:", err)
		return ExitInternal
	}
	fmt.Fprintf(done, "pid %d\n", worker.Process.Pid)
	return ExitOK
}

// reportExit tells the process the client started that the worker is
// done, with its exit code.
func reportExit(code int) {
	fmt.Fprintf(os.NewFile(doneFD, "done"), "exit %d\n", code)
}

// keepDone keeps the worker's end of the done pipe from the processes it
// starts (the agent): only the worker reports.
func keepDone() { syscall.CloseOnExec(doneFD) }
