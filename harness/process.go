package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/jsonl"
)

// stderrCap bounds how much agent stderr a run keeps (the tail survives).
const stderrCap = 1 << 20

// sdkMaxLine is the longest line the ACP SDK's reader accepts (its scanner
// buffer is 10 MiB, newline included); longer lines are recorded, then fail
// the run instead of silently closing the SDK's connection.
const sdkMaxLine = 10<<20 - 1

// agent is the running agent process: its pipes, the stdout tee that
// records every raw line before the SDK sees it, and its exit.
type agent struct {
	cmd    *exec.Cmd
	pgid   int
	grace  time.Duration
	cancel context.CancelFunc // SIGTERM to the group, through cmd.Cancel

	stdin   *os.File      // write end; the SDK writes requests here
	stdout  *os.File      // read end, owned by the tee
	stderr  *os.File      // read end, owned by the stderr reader
	sdk     io.ReadCloser // what the SDK reads: the valid lines of stdout
	teeDone chan struct{}
	errDone chan struct{}

	mu    sync.Mutex
	lines [][]byte
	tail  tailBuffer

	exited    chan struct{}
	waitErr   error // valid once exited is closed
	signalled bool  // shutdown had to signal the agent; set before shutdown returns
}

// startAgent starts argv in cwd with env, in its own process group.
// fail is called (from the tee) when stdout breaks the protocol.
func startAgent(argv []string, cwd string, env []string, grace time.Duration, fail func(error)) (*agent, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	name := argv[0]
	if strings.ContainsRune(name, filepath.Separator) && !filepath.IsAbs(name) {
		name, _ = filepath.Abs(name) // exec would resolve it against cmd.Dir, the scenario cwd
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, name, argv[1:]...)
	cmd.Dir, cmd.Env = cwd, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = grace // after SIGTERM, Wait kills the leader and returns
	if err := cmd.Start(); err != nil {
		cancel()
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, err
	}
	closeAll(inR, outW, errW) // the child holds its ends now
	sdkR, sdkW := io.Pipe()
	a := &agent{cmd: cmd, pgid: cmd.Process.Pid, grace: grace, cancel: cancel,
		stdin: inW, stdout: outR, stderr: errR, sdk: sdkR,
		teeDone: make(chan struct{}), errDone: make(chan struct{}), exited: make(chan struct{})}
	go a.tee(sdkW, fail)
	go a.readStderr()
	go func() {
		a.waitErr = cmd.Wait()
		close(a.exited)
	}()
	return a, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// tee records every raw stdout line and passes the JSON ones to the SDK;
// a line that is not JSON, or not valid UTF-8, fails the run at once.
func (a *agent) tee(sdk *io.PipeWriter, fail func(error)) {
	defer close(a.teeDone)
	defer sdk.Close()
	s := jsonl.NewScanner(a.stdout)
	n := 0
	for s.Scan() {
		n++
		line := bytes.Clone(s.Bytes())
		a.mu.Lock()
		a.lines = append(a.lines, line)
		a.mu.Unlock()
		if !json.Valid(line) {
			fail(fmt.Errorf("agent stdout line %d is not JSON (stdout is protocol only): %s", n, quote(line)))
			continue
		}
		if !utf8.Valid(line) { // JSON decoding would turn it into U+FFFD unseen
			fail(fmt.Errorf("agent stdout line %d is not valid UTF-8 (stdout is protocol only): %s", n, quote(line)))
			continue
		}
		if len(line) > sdkMaxLine {
			fail(fmt.Errorf("agent stdout line %d has %d bytes; the ACP SDK reads at most %d", n, len(line), sdkMaxLine))
			continue
		}
		sdk.Write(append(line, '\n')) // an error means the SDK is gone; keep recording
	}
	if err := s.Err(); err != nil && !isClosed(err) {
		fail(fmt.Errorf("agent stdout line %d: %w", n+1, err))
	}
}

func isClosed(err error) bool { return errors.Is(err, os.ErrClosed) }

// quote shows at most 200 bytes of a line, Go-quoted.
func quote(b []byte) string {
	if len(b) > 200 {
		return fmt.Sprintf("%q… (%d bytes)", b[:200], len(b))
	}
	return fmt.Sprintf("%q", b)
}

func (a *agent) readStderr() {
	defer close(a.errDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := a.stderr.Read(buf)
		a.mu.Lock()
		a.tail.Write(buf[:n])
		a.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// ending is how the agent ended at shutdown.
type ending int

const (
	exitedOnEOF ending = iota // exited within grace of stdin closing, as it should
	terminated                // needed SIGTERM
	killed                    // ignored SIGTERM and was SIGKILLed
)

func (e ending) String() string {
	switch e {
	case terminated:
		return "sent SIGTERM"
	case killed:
		return "killed with SIGKILL after ignoring SIGTERM"
	}
	return "exited"
}

// shutdown ends the agent, always in bounded time: close stdin, give it
// grace to exit, SIGTERM the group (cmd.Cancel), give it grace again, then
// SIGKILL (cmd.WaitDelay kills the leader; the sweep kills the group, even
// when the leader exited on its own and left children behind). It reports
// how the agent ended, and whether members of its group outlived it.
func (a *agent) shutdown() (how ending, leftovers bool) {
	a.stdin.Close()
	timer := time.NewTimer(a.grace)
	select {
	case <-a.exited:
		timer.Stop()
	case <-timer.C:
		a.signalled = true
		a.cancel()
		<-a.exited
		how = terminated
		if diedOf(a.cmd.ProcessState, syscall.SIGKILL) {
			how = killed
		}
	}
	a.cancel()
	leftovers = groupAlive(a.pgid)
	a.sweep()
	a.drain(a.teeDone, a.stdout)
	a.drain(a.errDone, a.stderr)
	return how, leftovers
}

// diedOf reports whether the process was ended by sig.
func diedOf(ps *os.ProcessState, sig syscall.Signal) bool {
	if ps == nil {
		return false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// sweep SIGKILLs whatever is left of the process group and waits (bounded
// by grace) until no live member remains.
func (a *agent) sweep() {
	signalGroup(a.pgid, syscall.SIGKILL)
	deadline := time.Now().Add(a.grace)
	for groupAlive(a.pgid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// drain waits for a reader to reach EOF; a descendant that escaped the
// group may still hold the pipe, so after grace the read end is closed.
func (a *agent) drain(done chan struct{}, f *os.File) {
	select {
	case <-done:
	case <-time.After(a.grace):
		f.Close()
		<-done
	}
	f.Close()
}

func signalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

// exitState describes how the agent ended, for messages.
func (a *agent) exitState() string {
	if a.waitErr == nil {
		return "exit status 0"
	}
	return a.waitErr.Error()
}

// lineCount is how many stdout lines the agent has written so far.
func (a *agent) lineCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.lines)
}

func (a *agent) stdoutLines() [][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lines
}

func (a *agent) stderrText() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tail.String()
}

// tailBuffer keeps the last stderrCap bytes written to it.
type tailBuffer struct {
	buf     []byte
	dropped int
}

func (t *tailBuffer) Write(p []byte) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrCap; over > 0 {
		t.dropped += over
		t.buf = append(t.buf[:0:0], t.buf[over:]...)
	}
}

func (t *tailBuffer) String() string {
	if t.dropped > 0 {
		return fmt.Sprintf("[%d earlier bytes dropped]\n%s", t.dropped, t.buf)
	}
	return string(t.buf)
}

// lastLines is the last n lines of s, indented for an error message.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "\t" + strings.Join(lines, "\n\t")
}
