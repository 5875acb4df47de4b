package snapshots_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// minimalClient is the floor's client side: it takes session updates,
// answers permission requests with input.json's answers in order, reads
// and writes files where the agent says, and has no terminals.
type minimalClient struct {
	mu      sync.Mutex
	answers []scenario.PermissionAnswer
	asked   int
	errs    []error
}

func (c *minimalClient) fail(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, err)
	return err
}

func (c *minimalClient) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.errs...)
}

func (*minimalClient) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

func (c *minimalClient) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	n := c.asked
	c.asked++
	c.mu.Unlock()
	if n < len(c.answers) {
		for _, o := range req.Options {
			if string(o.Kind) == c.answers[n].Kind {
				return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
			}
		}
	}
	return acp.RequestPermissionResponse{}, c.fail(fmt.Errorf("permission request %d: no answer among its options", n+1))
}

func (c *minimalClient) ReadTextFile(_ context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	if req.Line != nil || req.Limit != nil {
		return acp.ReadTextFileResponse{}, c.fail(errors.New("fs/read_text_file with line or limit: the floor reads whole files"))
	}
	b, err := os.ReadFile(req.Path)
	return acp.ReadTextFileResponse{Content: string(b)}, err
}

func (*minimalClient) WriteTextFile(_ context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, os.WriteFile(req.Path, []byte(req.Content), 0o644)
}

var errNoTerminals = errors.New("the floor's client has no terminals")

func (*minimalClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errNoTerminals
}

func (*minimalClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errNoTerminals
}

func (*minimalClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errNoTerminals
}

func (*minimalClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errNoTerminals
}

func (*minimalClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errNoTerminals
}
