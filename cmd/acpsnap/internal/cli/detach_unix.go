//go:build unix

package cli

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// canDetach: a capture's work runs in a worker (detached).
const canDetach = true

// detached runs argv (this process's command line) again as a worker in a
// session of its own, on this process's stdin, stdout and stderr, marked
// by workerEnv, and returns its exit code. A client that stops its agent
// server by killing it (Zed kills the process it started, not its
// group) then ends only this process: the worker sees the client's
// stream end, as when the client disconnects, and still writes what it
// captured. The signals that stop a run are passed on to it.
func (e *env) detached(argv []string) int {
	exe, err := os.Executable()
	if err != nil {
		return e.exit(err)
	}
	// argv[0] as it was: a binary that dispatches on its name (a test
	// binary standing in for acpsnap) is the same command again.
	cmd := &exec.Cmd{Path: exe, Args: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return e.exit(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			cmd.Process.Signal(s)
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode()
			}
			if err != nil {
				return e.exit(err)
			}
			return ExitOK
		}
	}
}
