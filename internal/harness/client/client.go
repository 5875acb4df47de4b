package client

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/internal/harness/proc"
	"github.com/acpsnap/acpsnap/internal/safefile"
)

// Client is the harness's side of ACP (acp.Client): it answers permission
// requests from the scenario's answers, serves the file system inside the
// cwd, and runs terminals. Methods it does not implement are answered
// -32601 by the SDK, unless a clientAnswers entry answers them first
// (Book.Answering).
type Client struct {
	Cwd     string      // the scenario cwd
	Root    *os.Root    // the cwd, for every fs/* open: no link can lead out, even one swapped in mid-check
	Aliases []string    // other spellings of cwd the agent may use
	Terms   *Terminals  // the agent's terminals
	Flow    *proc.Flow  // the tee's flow window; its barriers arrive as session/update
	Fail    func(error) // fails the run
	Book    *Book       // input.json's answers, shared by every incarnation of the agent
}

var _ acp.Client = (*Client)(nil)

// SessionUpdate does nothing with the agent's notifications (the raw line
// is already recorded); it acknowledges the tee's flow barriers.
func (c *Client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if c.Flow != nil {
		c.Flow.Ack(n)
	}
	return nil
}

// RequestPermission selects the option whose kind is the next answer; an
// unoffered kind or no answer left fails the run.
func (c *Client) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	b := c.Book
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked++
	var offered []string
	for _, o := range req.Options {
		offered = append(offered, string(o.Kind))
	}
	if b.asked > len(b.permissions) {
		return acp.RequestPermissionResponse{}, c.failf("session/request_permission #%d (options %s): input.json has only %d permissionAnswers",
			b.asked, strings.Join(offered, ", "), len(b.permissions))
	}
	kind := b.permissions[b.asked-1].Kind
	for _, o := range req.Options {
		if string(o.Kind) == kind {
			return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return acp.RequestPermissionResponse{}, c.failf("session/request_permission #%d: permissionAnswers[%d] is %q, but the agent offered %s",
		b.asked, b.asked-1, kind, strings.Join(offered, ", "))
}

func (c *Client) failf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	c.Fail(err)
	return err
}

// maxReadFile bounds what fs/read_text_file reads (the whole file is read
// before line and limit select from it).
const maxReadFile = 64 << 20

// ReadTextFile reads a regular file inside the cwd, at most maxReadFile
// bytes, through the cwd's os.Root; line (1-based) and limit select lines.
// A FIFO, a device or a directory is refused at once (the open does not
// block), so every request gets an answer.
func (c *Client) ReadTextFile(_ context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	rel, err := c.inside(req.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, fmt.Errorf("fs/read_text_file: %w", err)
	}
	f, err := c.Root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return acp.ReadTextFileResponse{}, fmt.Errorf("fs/read_text_file: %w", err)
	}
	defer f.Close()
	b, err := safefile.ReadOpen(f, req.Path, maxReadFile)
	if err != nil {
		return acp.ReadTextFileResponse{}, fmt.Errorf("fs/read_text_file: %w", err)
	}
	return acp.ReadTextFileResponse{Content: selectLines(string(b), req.Line, req.Limit)}, nil
}

func selectLines(s string, line, limit *int) string {
	if line == nil && limit == nil {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	start := 0
	if line != nil && *line > 1 {
		start = min(*line-1, len(lines))
	}
	end := len(lines)
	if limit != nil && *limit >= 0 {
		end = min(start+*limit, end)
	}
	return strings.Join(lines[start:end], "")
}

// WriteTextFile writes a file inside the cwd, creating its parent
// folders, through the cwd's os.Root; only a regular file (new or
// existing) is written.
func (c *Client) WriteTextFile(_ context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	if err := c.write(req.Path, req.Content); err != nil {
		return acp.WriteTextFileResponse{}, fmt.Errorf("fs/write_text_file: %w", err)
	}
	return acp.WriteTextFileResponse{}, nil
}

func (c *Client) write(path, content string) error {
	rel, err := c.inside(path)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := c.Root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := c.Root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return err
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", path, safefile.ErrNotRegular)
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// inside maps an absolute path under the cwd (or one of its aliases) to a
// path relative to the cwd, refusing anything outside, and symbolic links
// that lead out, dangling ones included (writing through one would create
// its target). The check gives the clear message; the opens through
// c.Root are what make it hold while the agent swaps links.
func (c *Client) inside(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("path %q is not absolute", path)
	}
	clean := filepath.Clean(path)
	for _, root := range append([]string{c.Cwd}, c.Aliases...) {
		if !safefile.Within(root, clean) {
			continue
		}
		if !safefile.Confined(root, clean) {
			return "", fmt.Errorf("path %q leaves the session cwd through a symbolic link", path)
		}
		rel, err := filepath.Rel(root, clean)
		if err != nil {
			return "", fmt.Errorf("path %q: %w", path, err)
		}
		return rel, nil
	}
	return "", fmt.Errorf("path %q is outside the session cwd %s", path, c.Cwd)
}

// CreateTerminal starts a command in a pty; its cwd must be inside the
// session cwd (default: the cwd).
func (c *Client) CreateTerminal(_ context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	dir := c.Cwd
	if req.Cwd != nil && *req.Cwd != "" {
		var err error
		rel, err := c.inside(*req.Cwd)
		if err != nil {
			return acp.CreateTerminalResponse{}, fmt.Errorf("terminal/create: %w", err)
		}
		dir = filepath.Join(c.Cwd, rel)
	}
	id, err := c.Terms.create(req, dir)
	return acp.CreateTerminalResponse{TerminalId: id}, err
}

// TerminalOutput returns the output so far and, once exited, the status.
func (c *Client) TerminalOutput(_ context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	t, err := c.Terms.get(req.TerminalId)
	if err != nil {
		return acp.TerminalOutputResponse{}, fmt.Errorf("terminal/output: %w", err)
	}
	return t.output(), nil
}

// WaitForTerminalExit blocks until the command exits.
func (c *Client) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	t, err := c.Terms.get(req.TerminalId)
	if err != nil {
		return acp.WaitForTerminalExitResponse{}, fmt.Errorf("terminal/wait_for_exit: %w", err)
	}
	return t.waitForExit(ctx)
}

// KillTerminal kills the command's process group; the terminal stays
// readable until released.
func (c *Client) KillTerminal(_ context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	t, err := c.Terms.get(req.TerminalId)
	if err != nil {
		return acp.KillTerminalResponse{}, fmt.Errorf("terminal/kill: %w", err)
	}
	t.kill()
	<-t.done
	return acp.KillTerminalResponse{}, nil
}

// ReleaseTerminal kills the command if still running and forgets it.
func (c *Client) ReleaseTerminal(_ context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	if err := c.Terms.release(req.TerminalId); err != nil {
		return acp.ReleaseTerminalResponse{}, fmt.Errorf("terminal/release: %w", err)
	}
	return acp.ReleaseTerminalResponse{}, nil
}
