package agent_test

import (
	"context"
	"fmt"
	"io"
	"os"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/agent"
	"github.com/acpsnap/acpsnap/model"
)

// hello is a model.Provider that always answers "Hello!".
type hello struct{}

func (hello) Stream(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
	for _, c := range []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: "Hello!"},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Finish, Reason: model.FinishStop},
	} {
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

// printer is a minimal ACP client that prints the agent's messages.
type printer struct{ acp.Client }

func (printer) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	if c := n.Update.AgentMessageChunk; c != nil {
		fmt.Println("agent:", c.Content.Text.Text)
	}
	return nil
}

// Serve runs the agent over any reader/writer pair; here an ACP client
// talks to it through pipes.
func ExampleServe() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	served := make(chan error)
	go func() {
		served <- agent.Serve(context.Background(), agent.Config{Provider: hello{}, SessionsDir: dir}, toAgentR, toClientW)
		toClientW.Close()
	}()

	ctx := context.Background()
	client := acp.NewClientSideConnection(printer{}, toAgentW, toClientR)
	if _, err := client.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		panic(err)
	}
	sess, err := client.NewSession(ctx, acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
	if err != nil {
		panic(err)
	}
	resp, err := client.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
	if err != nil {
		panic(err)
	}
	fmt.Println("stop:", resp.StopReason)
	toAgentW.Close() // EOF: the agent closes its logs and returns
	fmt.Println("served:", <-served)
	// Output:
	// agent: Hello!
	// stop: end_turn
	// served: <nil>
}
