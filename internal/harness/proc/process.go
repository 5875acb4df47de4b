package proc

import (
	"bufio"
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
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// buffers are the tee's and the stderr reader's buffers, each 64 KiB,
// reused from one agent to the next: a run that replays in milliseconds
// would otherwise make the garbage collector run for them.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// stderrCap bounds how much agent stderr a run keeps (the tail survives).
const stderrCap = 1 << 20

// stdoutCap bounds the agent stdout a run records (Result.Stdout): past
// it the run fails and the rest is read and dropped, so memory stays
// bounded whatever the agent prints (a run compares it, normalized, with a
// fixture of up to scenario.MaxFileBytes, within 512 MB).
const stdoutCap = 128 << 20

// sdkMaxLine is the longest line the ACP SDK's reader accepts (its scanner
// buffer is 10 MiB, newline included); longer lines are recorded, then fail
// the run instead of silently closing the SDK's connection.
const sdkMaxLine = 10<<20 - 1

// Agent is the running agent process: its pipes, the stdout tee that
// records every raw line before the SDK sees it, and its exit.
type Agent struct {
	cmd    *exec.Cmd
	pgid   int
	member int // a live member of the group last seen by Shutdown (groupAlive)
	grace  time.Duration
	cancel context.CancelFunc // SIGTERM to the group, through cmd.Cancel

	stdin   *os.File       // write end; the SDK writes requests here
	stdout  *os.File       // read end, owned by the tee
	stderr  *os.File       // read end, owned by the stderr reader
	sdk     *io.PipeReader // what the SDK reads: the valid lines of stdout
	flow    *Flow          // keeps the SDK's notification queue from overflowing
	sdkGone chan struct{}  // closed when the SDK's connection has ended (CloseSDK)
	goneMu  sync.Once
	closing atomic.Bool // shutdown cut the pipes; a broken SDK write is no fault then
	teeDone chan struct{}
	errDone chan struct{}
	wrote   chan struct{} // gets a value (never blocking) after a stdout line; wakes the waits
	each    func([]byte)  // StartRelay: gets every stdout line instead of the SDK; nil: Start

	mu          sync.Mutex
	lines       [][]byte
	stdoutBytes int
	tail        Ring

	exited    chan struct{}
	waitErr   error // valid once exited is closed
	signalled bool  // shutdown had to signal the agent; set before shutdown returns
	ended     Times // the timings of shutdown; set before shutdown returns
}

// Start starts argv in cwd with env, in its own process group, and with
// ownUserNS in a user namespace of its own (DieWithHarness). fail is
// called (from the tee) when stdout breaks the protocol.
func Start(argv []string, cwd string, env []string, grace time.Duration, ownUserNS bool, fail func(error)) (*Agent, error) {
	return start(argv, cwd, env, grace, ownUserNS, fail, nil)
}

// StartRelay is Start for an agent whose stdout goes on to another client
// (acpsnap capture) instead of the SDK: the tee hands each line, as read
// and without its "\n", to each before it records and checks it, in wire
// order, on its one goroutine; each must not keep the slice. SDK reads
// nothing and no flow barrier is written.
func StartRelay(argv []string, cwd string, env []string, grace time.Duration, ownUserNS bool, fail func(error), each func(line []byte)) (*Agent, error) {
	return start(argv, cwd, env, grace, ownUserNS, fail, each)
}

func start(argv []string, cwd string, env []string, grace time.Duration, ownUserNS bool, fail func(error), each func([]byte)) (*Agent, error) {
	becomeSubreaper()
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
	cmd.SysProcAttr = DieWithHarness(&syscall.SysProcAttr{Setpgid: true}, ownUserNS)
	cmd.Cancel = func() error { return SignalGroup(cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = grace // after SIGTERM, Wait kills the leader and returns
	if err := StartTracked(func() (int, error) {
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	}); err != nil {
		cancel()
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, err
	}
	closeAll(inR, outW, errW) // the child holds its ends now
	sdkR, sdkW := io.Pipe()
	a := &Agent{cmd: cmd, pgid: cmd.Process.Pid, grace: grace, cancel: cancel,
		stdin: inW, stdout: outR, stderr: errR, sdk: sdkR, flow: newFlow(), sdkGone: make(chan struct{}),
		teeDone: make(chan struct{}), errDone: make(chan struct{}), wrote: make(chan struct{}, 1), exited: make(chan struct{}), each: each}
	a.tail.Limit = stderrCap
	go a.tee(sdkW, fail)
	go a.readStderr()
	go func() {
		a.waitErr = cmd.Wait()
		Untrack(cmd.Process.Pid)
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
// a line that is not JSON, not valid UTF-8, holds a duplicate key, or is
// too long, fails the run at once. It never blocks on a gone SDK: once
// the connection has ended (CloseSDK) lines are still recorded, no longer
// forwarded.
func (a *Agent) tee(sdk *io.PipeWriter, fail func(error)) {
	defer close(a.teeDone)
	defer sdk.Close()
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	s := strictjson.NewScannerBuffer(a.stdout, *buf)
	n := 0
	for s.Scan() {
		n++
		if a.each != nil {
			a.each(s.Bytes())
		}
		line := a.record(s.Bytes(), n, fail)
		select {
		case a.wrote <- struct{}{}:
		default:
		}
		if line == nil {
			continue
		}
		if err := checkLine(line, n); err != nil {
			fail(err)
			continue
		}
		if a.each == nil {
			a.forward(sdk, line, n, fail)
		}
	}
	if err := s.Err(); err != nil && !isClosed(err) {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line too long (more than %d MiB; the harness reads at most that)", strictjson.MaxLine>>20)
		}
		fail(fmt.Errorf("agent stdout line %d: %w", n+1, err))
	}
}

// record keeps a copy of line (with room for the "\n" the SDK needs)
// and returns it, unless the recorded stdout is over its cap (which fails
// the run once): then it returns nil.
func (a *Agent) record(line []byte, n int, fail func(error)) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stdoutBytes+len(line) > stdoutCap {
		if a.stdoutBytes <= stdoutCap {
			a.stdoutBytes = stdoutCap + 1
			fail(fmt.Errorf("agent stdout line %d: the agent printed more than %d MiB on stdout; the harness records at most that", n, stdoutCap>>20))
		}
		return nil
	}
	a.stdoutBytes += len(line)
	kept := append(make([]byte, 0, len(line)+1), line...)
	a.lines = append(a.lines, kept)
	return kept
}

// checkLine is the protocol check of one stdout line: JSON, valid UTF-8
// (JSON decoding would turn it into U+FFFD unseen), no duplicate key
// (decoding keeps the last of two silently), within the SDK's line limit.
func checkLine(line []byte, n int) error {
	// strictjson validates the syntax too: a second json.Valid runs only to
	// tell a line that is not JSON from one with a duplicate key.
	_, _, dupErr := strictjson.Parse(line, "agent stdout", n-1, "$")
	if dupErr != nil && !json.Valid(line) {
		return fmt.Errorf("agent stdout line %d is not JSON (stdout is protocol only): %s", n, console.Quote(line))
	}
	if !utf8.Valid(line) {
		return fmt.Errorf("agent stdout line %d is not valid UTF-8 (stdout is protocol only): %s", n, console.Quote(line))
	}
	if len(line) > sdkMaxLine {
		return fmt.Errorf("agent stdout line %d has %d bytes; the ACP SDK reads at most %d", n, len(line), sdkMaxLine)
	}
	if dupErr != nil && strings.Contains(dupErr.Error(), strictjson.TooDeep) {
		return fmt.Errorf("%w (stdout is protocol only): %s", dupErr, console.Quote(line))
	}
	if dupErr != nil {
		return fmt.Errorf("%w (a JSON decoder would keep only the last value; stdout is protocol only): %s", dupErr, console.Quote(line))
	}
	return nil
}

// forward hands line to the SDK, keeping its notification queue within
// the flow window; a write that fails while the harness is not shutting
// down means the SDK closed the connection under a live agent.
func (a *Agent) forward(sdk *io.PipeWriter, line []byte, n int, fail func(error)) {
	notification := isNotification(line)
	if notification && !a.flow.wait(a.sdkGone) {
		a.sdkBroke(n, fail)
		return
	}
	if _, err := sdk.Write(append(line, '\n')); err != nil {
		a.sdkBroke(n, fail)
		return
	}
	if !notification {
		return
	}
	if barrier := a.flow.forwarded(); barrier != nil {
		if _, err := sdk.Write(barrier); err != nil {
			a.sdkBroke(n, fail)
		}
	}
}

func (a *Agent) sdkBroke(n int, fail func(error)) {
	if !a.closing.Load() {
		fail(fmt.Errorf("agent stdout line %d: the ACP connection closed while the agent was still writing (notification queue overflow?)", n))
	}
}

// CloseSDK ends what the SDK reads, so that a write blocked on it returns;
// called when the SDK's connection ends and at shutdown.
func (a *Agent) CloseSDK() {
	a.goneMu.Do(func() {
		close(a.sdkGone)
		a.sdk.CloseWithError(io.ErrClosedPipe)
	})
}

// isNotification reports whether line is a JSON-RPC notification the SDK
// queues: a method, no id (or a null one), not $/cancel_request.
func isNotification(line []byte) bool {
	var m struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	return m.ID == nil && m.Method != "" && m.Method != "$/cancel_request"
}

func isClosed(err error) bool { return errors.Is(err, os.ErrClosed) }

func (a *Agent) readStderr() {
	defer close(a.errDone)
	b := buffers.Get().(*[]byte)
	defer buffers.Put(b)
	buf := (*b)[:cap(*b)]
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

// Ending is how the agent ended at shutdown.
type Ending int

const (
	ExitedOnEOF Ending = iota // exited within grace of stdin closing, as it should
	Terminated                // needed SIGTERM
	Killed                    // ignored SIGTERM and was SIGKILLed
)

// String is the harness.Shutdown.How of e, the words acpsnap probe reads
// back.
func (e Ending) String() string {
	switch e {
	case Terminated:
		return "sent SIGTERM"
	case Killed:
		return "killed with SIGKILL after ignoring SIGTERM"
	}
	return "exited"
}

// Shutdown ends the agent, always within three graces: close stdin and
// give it a grace to exit; SIGTERM the group (cmd.Cancel) and give it a
// grace again (cmd.WaitDelay then SIGKILLs the leader); then SIGKILL the
// whole group (even when the leader exited on its own and left children
// behind) and give the kill, and the readers of stdout and stderr, one
// last grace together, after which the pipes are cut. It reports how the
// agent ended, and whether members of its group outlived it.
// eofWait is how long the agent gets to exit on stdin EOF before SIGTERM:
// one grace, or nothing for an agent whose normal end is SIGTERM.
func (a *Agent) Shutdown(eofWait time.Duration) (how Ending, leftovers bool) {
	a.stdin.Close()
	closed := time.Now()
	timer := time.NewTimer(eofWait)
	select {
	case <-a.exited:
		timer.Stop()
		a.ended.EOF = time.Since(closed)
	case <-timer.C:
		a.signalled = true
		a.ended.EOF = time.Since(closed)
		a.cancel()
		<-a.exited // bounded: WaitDelay SIGKILLs the leader one grace after SIGTERM
		a.ended.Term = time.Since(closed) - a.ended.EOF
		how = Terminated
		if diedOf(a.cmd.ProcessState, syscall.SIGKILL) {
			how = Killed
		}
	}
	a.cancel()
	exited := time.Now()
	a.settle(a.grace)
	a.ended.Group = time.Since(exited)
	leftovers = groupAlive(a.pgid, &a.member)
	deadline := time.Now().Add(a.grace)
	a.sweep(deadline)
	if !groupAlive(a.pgid, &a.member) {
		Forget(a.pgid)
	}
	a.drain(deadline)
	return how, leftovers
}

// settle waits, at most d (one grace), for the process group to have no
// live member: children that end on their own after the leader (an MCP
// server over stdio, the acpsnap mcp-cassette proxy publishing its
// cassette, an npm launcher's child cleaning up) are not leftovers.
func (a *Agent) settle(d time.Duration) {
	for deadline := time.Now().Add(d); groupAlive(a.pgid, &a.member) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

// diedOf reports whether the process was ended by sig.
func diedOf(ps *os.ProcessState, sig syscall.Signal) bool {
	if ps == nil {
		return false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// sweep SIGKILLs whatever is left of the process group and waits (until
// deadline at most) until no live member remains.
func (a *Agent) sweep(deadline time.Time) {
	SignalGroup(a.pgid, syscall.SIGKILL)
	for groupAlive(a.pgid, &a.member) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// drain waits (until deadline at most) for the stdout tee and the stderr
// reader to reach EOF; a descendant that escaped the group may still hold
// the pipes, so then they are cut: the read ends closed, and the SDK's
// pipe too, so that a tee blocked on the SDK returns.
func (a *Agent) drain(deadline time.Time) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for _, done := range []chan struct{}{a.teeDone, a.errDone} {
		select {
		case <-done:
			continue
		case <-timer.C:
		}
		break
	}
	a.closing.Store(true)
	a.stdout.Close()
	a.stderr.Close()
	a.CloseSDK()
	<-a.teeDone // each returns at once: its file is closed, the SDK pipe too
	<-a.errDone
}

// SignalGroup sends sig to process group pgid; a group already gone is
// no error.
func SignalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

// ExitState describes how the agent ended, for messages.
func (a *Agent) ExitState() string {
	if a.waitErr == nil {
		return "exit status 0"
	}
	return a.waitErr.Error()
}

// LineCount is how many stdout lines the agent has written so far.
func (a *Agent) LineCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.lines)
}

// StdoutLines are the raw stdout lines so far, in wire order, without "\n".
func (a *Agent) StdoutLines() [][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lines
}

// StderrText is the agent's stderr (its last stderrCap bytes, and how many
// were dropped before them).
func (a *Agent) StderrText() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if d := a.tail.Dropped(); d > 0 {
		return fmt.Sprintf("[%d earlier bytes dropped]\n%s", d, a.tail.Bytes())
	}
	return string(a.tail.Bytes())
}

// Times are the measured phases of Shutdown.
type Times struct {
	// EOF is stdin closing → the agent exiting, or → SIGTERM when it had
	// to be sent; Term is SIGTERM → the agent exiting (0: not sent).
	EOF, Term time.Duration
	// Group is the agent exiting → its process group empty (at most one
	// grace).
	Group time.Duration
}

// Times is how long each phase of Shutdown took; valid once Shutdown
// has returned.
func (a *Agent) Times() Times { return a.ended }

// Stdin is the agent's stdin, where the ACP connection writes.
func (a *Agent) Stdin() io.Writer { return a.stdin }

// SDK is what the ACP connection reads: the valid lines of stdout, with
// the Flow's barriers among them.
func (a *Agent) SDK() io.Reader { return a.sdk }

// Flow is the window that keeps the SDK's notification queue from
// overflowing; the client acknowledges its barriers (Flow.Ack).
func (a *Agent) Flow() *Flow { return a.flow }

// Exited is closed when the agent process has exited and been waited for.
func (a *Agent) Exited() <-chan struct{} { return a.exited }

// WaitErr is how the process ended (nil: exit status 0); valid once
// Exited is closed.
func (a *Agent) WaitErr() error { return a.waitErr }

// Signalled reports whether Shutdown had to signal the agent; valid once
// Shutdown has returned.
func (a *Agent) Signalled() bool { return a.signalled }

// Wrote gets a value (never blocking) after each stdout line: it wakes a
// wait for what the agent writes.
func (a *Agent) Wrote() <-chan struct{} { return a.wrote }
