package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/internal/fspath"
	"github.com/acpsnap/acpsnap/scenario"
)

// client is the harness's side of ACP (acp.Client): it answers permission
// requests from the scenario's answers, serves the file system inside the
// cwd, and runs terminals. Methods it does not implement are answered
// -32601 by the SDK.
type client struct {
	cwd     string   // the scenario cwd
	aliases []string // other spellings of cwd the agent may use
	terms   *terminals
	fail    func(error) // fails the run

	mu      sync.Mutex
	answers []scenario.PermissionAnswer
	asked   int
}

var _ acp.Client = (*client)(nil)

// SessionUpdate does nothing: the raw notification is already recorded.
func (c *client) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

// RequestPermission selects the option whose kind is the next answer; an
// unoffered kind or no answer left fails the run.
func (c *client) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked++
	var offered []string
	for _, o := range req.Options {
		offered = append(offered, string(o.Kind))
	}
	if c.asked > len(c.answers) {
		return acp.RequestPermissionResponse{}, c.failf("session/request_permission #%d (options %s): input.json has only %d permissionAnswers",
			c.asked, strings.Join(offered, ", "), len(c.answers))
	}
	kind := c.answers[c.asked-1].Kind
	for _, o := range req.Options {
		if string(o.Kind) == kind {
			return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return acp.RequestPermissionResponse{}, c.failf("session/request_permission #%d: permissionAnswers[%d] is %q, but the agent offered %s",
		c.asked, c.asked-1, kind, strings.Join(offered, ", "))
}

func (c *client) failf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	c.fail(err)
	return err
}

// ReadTextFile reads a file inside the cwd; line (1-based) and limit
// select lines.
func (c *client) ReadTextFile(_ context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	path, err := c.inside(req.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, fmt.Errorf("fs/read_text_file: %w", err)
	}
	b, err := os.ReadFile(path)
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

// WriteTextFile writes a file inside the cwd, creating its parent folders.
func (c *client) WriteTextFile(_ context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	path, err := c.inside(req.Path)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		err = os.WriteFile(path, []byte(req.Content), 0o644)
	}
	if err != nil {
		return acp.WriteTextFileResponse{}, fmt.Errorf("fs/write_text_file: %w", err)
	}
	return acp.WriteTextFileResponse{}, nil
}

// inside maps an absolute path under the cwd (or one of its aliases) to
// the cwd, refusing anything outside, and symbolic links that lead out,
// dangling ones included (writing through one would create its target).
func (c *client) inside(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("path %q is not absolute", path)
	}
	clean := filepath.Clean(path)
	for _, root := range append([]string{c.cwd}, c.aliases...) {
		if !fspath.Within(root, clean) {
			continue
		}
		if !fspath.Confined(root, clean) {
			return "", fmt.Errorf("path %q leaves the session cwd through a symbolic link", path)
		}
		rel, err := filepath.Rel(root, clean)
		if err != nil {
			return "", fmt.Errorf("path %q: %w", path, err)
		}
		return filepath.Join(c.cwd, rel), nil
	}
	return "", fmt.Errorf("path %q is outside the session cwd %s", path, c.cwd)
}

// CreateTerminal starts a command in a pty; its cwd must be inside the
// session cwd (default: the cwd).
func (c *client) CreateTerminal(_ context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	dir := c.cwd
	if req.Cwd != nil && *req.Cwd != "" {
		var err error
		if dir, err = c.inside(*req.Cwd); err != nil {
			return acp.CreateTerminalResponse{}, fmt.Errorf("terminal/create: %w", err)
		}
	}
	id, err := c.terms.create(req, dir)
	return acp.CreateTerminalResponse{TerminalId: id}, err
}

// TerminalOutput returns the output so far and, once exited, the status.
func (c *client) TerminalOutput(_ context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	t, err := c.terms.get(req.TerminalId)
	if err != nil {
		return acp.TerminalOutputResponse{}, fmt.Errorf("terminal/output: %w", err)
	}
	return t.output(), nil
}

// WaitForTerminalExit blocks until the command exits.
func (c *client) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	t, err := c.terms.get(req.TerminalId)
	if err != nil {
		return acp.WaitForTerminalExitResponse{}, fmt.Errorf("terminal/wait_for_exit: %w", err)
	}
	return t.waitForExit(ctx)
}

// KillTerminal kills the command's process group; the terminal stays
// readable until released.
func (c *client) KillTerminal(_ context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	t, err := c.terms.get(req.TerminalId)
	if err != nil {
		return acp.KillTerminalResponse{}, fmt.Errorf("terminal/kill: %w", err)
	}
	t.kill()
	<-t.done
	return acp.KillTerminalResponse{}, nil
}

// ReleaseTerminal kills the command if still running and forgets it.
func (c *client) ReleaseTerminal(_ context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	if err := c.terms.release(req.TerminalId); err != nil {
		return acp.ReleaseTerminalResponse{}, fmt.Errorf("terminal/release: %w", err)
	}
	return acp.ReleaseTerminalResponse{}, nil
}
