package proc

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"
)

// The ACP SDK queues incoming notifications (up to 1024) for one goroutine
// that runs the client's handlers in order, and closes the connection when
// the queue is full: an agent that streams a burst of session/update
// notifications faster than they are handled would end the run for no
// fault of its own. The harness is the client, so it never lets the queue
// fill: after every flowBatch notifications the tee writes a barrier of its
// own (a session/update for a session id only the harness knows), and it
// forwards no more than flowWindow notifications past the last barrier the
// client has handled. Handled in order, a barrier proves that everything
// before it left the queue. The queue so holds at most flowWindow
// notifications and flowWindow/flowBatch barriers, well under 1024; the
// tee waits (backpressure on the agent's stdout pipe), never the SDK.
const (
	flowBatch  = 256
	flowWindow = 3 * flowBatch
)

// Flow is the tee's side of that window (an Agent's Flow); Ack is the
// client's, called from its SessionUpdate handler.
type Flow struct {
	id     string       // the barriers' session id
	acked  atomic.Int64 // highest barrier the client has handled
	signal chan struct{}

	sent     int64 // notifications forwarded (tee goroutine only)
	barriers int64 // barriers written (tee goroutine only)
}

func newFlow() *Flow {
	b := make([]byte, 12)
	rand.Read(b)
	return &Flow{id: "acpsnap-flow-" + hex.EncodeToString(b), signal: make(chan struct{}, 1)}
}

// wait blocks until one more notification fits in the window; it returns
// false when stop closes first (the SDK is gone).
func (f *Flow) wait(stop <-chan struct{}) bool {
	for f.sent-f.acked.Load()*flowBatch >= flowWindow {
		select {
		case <-f.signal:
		case <-stop:
			return false
		}
	}
	return true
}

// forwarded counts one notification; it returns the barrier line to write
// after it, if one is due.
func (f *Flow) forwarded() []byte {
	f.sent++
	if f.sent%flowBatch != 0 {
		return nil
	}
	f.barriers++
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%d"}}}}`+"\n", f.id, f.barriers)
}

// Ack handles n when it is one of the tee's barriers (and reports so).
func (f *Flow) Ack(n acp.SessionNotification) bool {
	if string(n.SessionId) != f.id {
		return false
	}
	if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
		if k, err := strconv.ParseInt(c.Content.Text.Text, 10, 64); err == nil {
			f.acked.Store(k)
			select {
			case f.signal <- struct{}{}:
			default:
			}
		}
	}
	return true
}
