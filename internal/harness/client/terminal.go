package client

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"
	"github.com/creack/pty"

	"github.com/acpsnap/acpsnap/internal/harness/proc"
)

// Terminals are the terminal/* processes the agent asked for. Each runs in a
// pty (creack/pty) in its own session, so its process group can be killed
// as a whole; all are killed when the run ends.
type Terminals struct {
	env       []string      // the agent's environment less secrets and ACPSNAP_* (terminalEnv); a request's env is added
	grace     time.Duration // how long release waits for output after a kill
	ownUserNS bool          // each in a user namespace of its own (proc.DieWithHarness)
	// ceiling bounds the output a terminal keeps whatever outputByteLimit
	// the agent asks for (0: maxOutputLimit).
	ceiling int

	mu   sync.Mutex
	next int
	m    map[string]*terminal
}

// NewTerminals is the terminals of one run: each command gets env and its
// request's env, and with ownUserNS a user namespace of its own
// (proc.DieWithHarness); release waits grace at most for a killed one's
// output.
func NewTerminals(env []string, grace time.Duration, ownUserNS bool) *Terminals {
	return &Terminals{env: env, grace: grace, ownUserNS: ownUserNS}
}

// defaultOutputLimit is the output a terminal keeps when the request sets
// no outputByteLimit (ACP lets the client choose): the last 1 MiB.
const defaultOutputLimit = 1 << 20

// maxOutputLimit is the most a terminal keeps, whatever the agent asks
// (an outputByteLimit of 1e13 must not take the harness's memory): 16 MiB.
const maxOutputLimit = 16 << 20

type terminal struct {
	cmd  *exec.Cmd
	ptmx *os.File

	mu     sync.Mutex
	out    proc.Ring               // the last outputByteLimit bytes
	status *acp.TerminalExitStatus // set once done is closed

	readDone chan struct{}
	done     chan struct{} // exited, and output read (bounded)
}

func (ts *Terminals) create(req acp.CreateTerminalRequest, dir string) (string, error) {
	cmd := exec.Command(req.Command, req.Args...)
	cmd.Dir = dir
	cmd.Env = append([]string(nil), ts.env...)
	for _, e := range req.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.SysProcAttr = proc.DieWithHarness(&syscall.SysProcAttr{}, ts.ownUserNS)
	var ptmx *os.File
	err := proc.StartTracked(func() (int, error) {
		var err error
		ptmx, err = pty.Start(cmd) // Setsid: own session and process group
		if err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	})
	if err != nil {
		return "", fmt.Errorf("terminal/create: %w", err)
	}
	t := &terminal{cmd: cmd, ptmx: ptmx, readDone: make(chan struct{}), done: make(chan struct{})}
	t.out.Limit = defaultOutputLimit
	if req.OutputByteLimit != nil && *req.OutputByteLimit > 0 {
		t.out.Limit = min(*req.OutputByteLimit, cmp.Or(ts.ceiling, maxOutputLimit))
	}
	go t.read()
	go t.wait(ts.grace)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.next++
	id := fmt.Sprintf("term-%d", ts.next)
	if ts.m == nil {
		ts.m = map[string]*terminal{}
	}
	ts.m[id] = t
	return id, nil
}

func (ts *Terminals) get(id string) (*terminal, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.m[id]
	if !ok {
		return nil, fmt.Errorf("unknown terminal %q", id)
	}
	return t, nil
}

// release kills the terminal and forgets it.
func (ts *Terminals) release(id string) error {
	t, err := ts.get(id)
	if err != nil {
		return err
	}
	t.kill()
	<-t.done
	proc.Forget(t.cmd.Process.Pid) // killed, its group with it
	t.ptmx.Close()
	ts.mu.Lock()
	delete(ts.m, id)
	ts.mu.Unlock()
	return nil
}

// CloseAll kills and releases every terminal (run shutdown).
func (ts *Terminals) CloseAll() {
	ts.mu.Lock()
	ids := make([]string, 0, len(ts.m))
	for id := range ts.m {
		ids = append(ids, id)
	}
	ts.mu.Unlock()
	for _, id := range ids {
		ts.release(id)
	}
}

// read copies pty output into the buffer until the pty closes (EIO once
// every holder of the tty is gone, or the master is closed).
func (t *terminal) read() {
	defer close(t.readDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := t.ptmx.Read(buf)
		t.append(buf[:n])
		if err != nil {
			return
		}
	}
}

// append adds output; the ring keeps the last bytes (outputByteLimit).
func (t *terminal) append(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out.Write(p)
}

// wait records the exit status once the command exits and its output is
// read; a descendant holding the tty open delays that by at most grace.
func (t *terminal) wait(grace time.Duration) {
	t.cmd.Wait() // the status below says how it ended
	proc.Untrack(t.cmd.Process.Pid)
	select {
	case <-t.readDone:
	case <-time.After(grace):
	}
	st := &acp.TerminalExitStatus{}
	ps := t.cmd.ProcessState
	if ps == nil { // not waited for (cannot happen short of a stolen wait)
		st.Signal = acp.Ptr("unknown")
	} else if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		st.Signal = acp.Ptr(signalName(ws.Signal()))
	} else {
		st.ExitCode = acp.Ptr(ps.ExitCode())
	}
	t.mu.Lock()
	t.status = st
	t.mu.Unlock()
	close(t.done)
}

// kill SIGKILLs the terminal's whole process group, and the command
// itself should it have left the group.
func (t *terminal) kill() {
	proc.SignalGroup(t.cmd.Process.Pid, syscall.SIGKILL)
	t.cmd.Process.Signal(syscall.SIGKILL)
}

// output is the kept output, cut at a character boundary, and whether
// anything was dropped.
func (t *terminal) output() acp.TerminalOutputResponse {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.out.Bytes()
	cut := 0
	if t.out.Dropped() > 0 {
		for cut < len(b) && cut < utf8.UTFMax && !utf8.RuneStart(b[cut]) {
			cut++
		}
	}
	return acp.TerminalOutputResponse{Output: string(b[cut:]), Truncated: t.out.Dropped() > 0, ExitStatus: t.status}
}

func (t *terminal) waitForExit(ctx context.Context) (acp.WaitForTerminalExitResponse, error) {
	select {
	case <-t.done:
	case <-ctx.Done():
		return acp.WaitForTerminalExitResponse{}, ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return acp.WaitForTerminalExitResponse{ExitCode: t.status.ExitCode, Signal: t.status.Signal}, nil
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGABRT: "SIGABRT", syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return fmt.Sprintf("SIG%d", int(s))
}
