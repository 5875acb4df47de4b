package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/model"
)

// maxBashTimeout caps a command's own timeoutMs.
const maxBashTimeout = 10 * time.Minute

// cleanupTimeout bounds the terminal/kill and terminal/release requests
// sent after a command ends, so a silent client cannot hang the turn.
const cleanupTimeout = 5 * time.Second

var bashTool = &tool{
	spec: model.ToolSpec{
		Name:        toolBash,
		Description: "Run a bash command in the working directory and return its combined stdout and stderr. A non-zero exit status is an error.",
		Parameters: []byte(`{"type":"object","properties":{` +
			`"command":{"type":"string","description":"the command, run with bash -c"},` +
			`"timeoutMs":{"type":"integer","minimum":1,"maximum":600000,"description":"timeout in milliseconds (default 120000)"}},` +
			`"required":["command"],"additionalProperties":false}`),
	},
	kind:   acp.ToolKindExecute,
	asks:   true,
	title:  titled("Run", "command", "Run command"),
	exec:   runBash,
	render: renderBash,
}

// exitStatus is how a command ended.
type exitStatus struct {
	output   string // the output, or its start when size is larger
	size     int    // the whole output's size in bytes; 0: len(output)
	code     int    // exit code, when signal is ""
	signal   string // the signal that killed it, if any
	timedOut bool
}

// bashValue is what bash records in a tool cassette: how the command
// ended, which renderBash turns into the result text.
type bashValue struct {
	Output    string `json:"output"`
	Size      int    `json:"size,omitempty"`
	Code      int    `json:"code,omitempty"`
	Signal    string `json:"signal,omitempty"`
	TimedOut  bool   `json:"timedOut,omitempty"`
	TimeoutMs int64  `json:"timeoutMs"`
}

func runBash(t *turn, c model.ToolCall) (json.RawMessage, error) {
	var a struct {
		Command   string `json:"command"`
		TimeoutMs int    `json:"timeoutMs"`
	}
	if err := decodeArgs(c.Arguments, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return nil, errors.New("command is required")
	}
	timeout := t.s.srv.cfg.BashTimeout
	if a.TimeoutMs > 0 {
		timeout = min(time.Duration(a.TimeoutMs)*time.Millisecond, maxBashTimeout)
	}
	var st exitStatus
	var err error
	if t.clientTerminal() {
		st, err = t.runTerminal(c, a.Command, timeout)
	} else {
		st, err = runLocal(t.ctx, t.s.cwd, a.Command, timeout)
	}
	if err != nil {
		return nil, err
	}
	size := st.size
	if size == len(st.output) {
		// Whole: no size, so a cassette that gives the output today's
		// folders (longer or shorter) renders no truncation note.
		size = 0
	}
	return json.Marshal(bashValue{Output: st.output, Size: size, Code: st.code, Signal: st.signal, TimedOut: st.timedOut, TimeoutMs: timeout.Milliseconds()})
}

// renderBash is bash's result text: the output, then a note when the
// command failed (an error result).
func renderBash(v json.RawMessage) (string, error) {
	var b bashValue
	if err := json.Unmarshal(v, &b); err != nil {
		return "", fmt.Errorf("tool cassette: the recorded bash value: %v (record again)", err)
	}
	st := exitStatus{output: b.Output, size: b.Size, code: b.Code, signal: b.Signal, timedOut: b.TimedOut}
	return st.result(time.Duration(b.TimeoutMs) * time.Millisecond)
}

// result is what the model sees: the output, then a note when the command
// failed (an error result).
func (st exitStatus) result(timeout time.Duration) (string, error) {
	out := truncateOf(st.output, max(st.size, len(st.output)))
	switch {
	case st.timedOut:
		return "", fmt.Errorf("%s\n[timed out after %s]", out, timeout)
	case st.signal != "":
		return "", fmt.Errorf("%s\n[killed by signal %s]", out, st.signal)
	case st.code != 0:
		return "", fmt.Errorf("%s\n[exit code %d]", out, st.code)
	case out == "":
		return "(no output)", nil
	}
	return out, nil
}

// runLocal runs command with bash -c in dir, in its own process group,
// with the tool environment (toolEnv), stdout and stderr into one
// anonymous file (outputFile; so a background job holding the output open
// cannot block the wait): the command never sees it in a folder and
// nothing is left behind if the agent dies. The group is
// killed when ctx ends or the timeout passes, and again after the shell
// exits so no background job outlives the call.
func runLocal(ctx context.Context, dir, command string, timeout time.Duration) (exitStatus, error) {
	f, done, err := outputFile()
	if err != nil {
		return exitStatus{}, fmt.Errorf("bash: output file: %v", err)
	}
	defer done()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(toolEnv(os.Environ()), "PWD="+dir) // exec sets PWD only when Env is nil
	cmd.Stdout, cmd.Stderr = f, f
	cmd.WaitDelay = cleanupTimeout
	ownProcessGroup(cmd)
	runErr := cmd.Run()
	if cmd.Process != nil {
		killProcessGroup(cmd.Process.Pid)
	}
	if ctx.Err() != nil {
		return exitStatus{}, ctx.Err()
	}
	st := exitStatus{timedOut: tctx.Err() != nil}
	st.output, st.size = readOutput(f)
	var ee *exec.ExitError
	switch {
	case runErr == nil:
	case errors.As(runErr, &ee):
		st.code, st.signal = exitDetails(ee.ProcessState)
	default:
		return exitStatus{}, fmt.Errorf("bash: %v", runErr)
	}
	return st, nil
}

// tempOutputFile is outputFile's portable way: a temporary file, unlinked
// at once where POSIX keeps an unlinked file alive while it is open; where
// removing an open file fails (Windows), it is removed after closing.
func tempOutputFile() (*os.File, func(), error) {
	f, err := os.CreateTemp("", "acpsnap-bash-*")
	if err != nil {
		return nil, nil, err
	}
	unlinked := os.Remove(f.Name()) == nil
	return f, func() {
		f.Close()
		if !unlinked {
			os.Remove(f.Name())
		}
	}, nil
}

// readOutput returns the start of the command's output file (enough for
// truncate to cut it) and its whole size in bytes.
func readOutput(f *os.File) (string, int) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", 0
	}
	b, _ := io.ReadAll(io.LimitReader(f, maxToolOutput+utf8.UTFMax))
	size := len(b)
	if fi, err := f.Stat(); err == nil {
		size = max(size, int(fi.Size()))
	}
	return string(b), size
}

// providerEnv is the prefix of the model provider's variables (package
// deepseek reads DEEPSEEK_*, the API key among them).
const providerEnv = "DEEPSEEK_"

// toolEnv returns environ without the variables no tool process may see
// (the provider's, and ACPSNAP_*, which hold machine paths). A command the
// model runs could otherwise print them into a recorded fixture.
func toolEnv(environ []string) []string { return secrets.Scrub(environ, []string{providerEnv}) }

// runTerminal runs command in a client terminal: terminal/create, then
// terminal/wait_for_exit bounded by the timeout, terminal/kill when it
// did not exit, terminal/output, and always terminal/release.
func (t *turn) runTerminal(c model.ToolCall, command string, timeout time.Duration) (exitStatus, error) {
	conn, sid := t.s.srv.conn, acp.SessionId(t.s.id)
	term, err := conn.CreateTerminal(t.ctx, acp.CreateTerminalRequest{
		SessionId: sid, Command: "bash", Args: []string{"-c", command},
		Cwd: acp.Ptr(t.s.cwd), OutputByteLimit: acp.Ptr(maxToolOutput),
	})
	if err != nil {
		return exitStatus{}, fmt.Errorf("terminal/create: %v", err)
	}
	id := term.TerminalId
	cleanup, cancelCleanup := context.WithTimeout(context.WithoutCancel(t.ctx), cleanupTimeout)
	defer cancelCleanup()
	defer conn.ReleaseTerminal(cleanup, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: id})
	t.s.notify(acp.UpdateToolCall(acp.ToolCallId(c.ID), acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolTerminalRef(id)})))
	wctx, cancel := context.WithTimeout(t.ctx, timeout)
	defer cancel()
	exit, err := conn.WaitForTerminalExit(wctx, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: id})
	st := exitStatus{}
	if err != nil {
		_, _ = conn.KillTerminal(cleanup, acp.KillTerminalRequest{SessionId: sid, TerminalId: id})
		if t.ctx.Err() != nil {
			return exitStatus{}, t.ctx.Err()
		}
		if wctx.Err() == nil {
			return exitStatus{}, fmt.Errorf("terminal/wait_for_exit: %v", err)
		}
		st.timedOut = true
	}
	out, err := conn.TerminalOutput(cleanup, acp.TerminalOutputRequest{SessionId: sid, TerminalId: id})
	if err != nil {
		return exitStatus{}, fmt.Errorf("terminal/output: %v", err)
	}
	st.output = out.Output
	if exit.ExitCode != nil {
		st.code = *exit.ExitCode
	}
	if exit.Signal != nil {
		st.signal = *exit.Signal
	}
	return st, nil
}
