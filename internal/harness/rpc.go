package harness

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// rawID is the id of the n-th raw request: a string, so it never meets
// the SDK's numeric ids.
func rawID(n int) string { return "acpsnap-" + strconv.Itoa(n) }

// rawResponse is the answer to a raw request as the agent wrote it.
type rawResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends one JSON-RPC request of any method (params nil: none) and
// waits within d for the agent's answer on its stdout.
func (r *run) call(d deadline, method string, params json.RawMessage) (rawResponse, error) {
	r.rawN++
	id := rawID(r.rawN)
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	seen := r.agent.LineCount()
	if err := r.wire.Send(msg); err != nil {
		return rawResponse{}, r.explain(method, err)
	}
	var resp rawResponse
	idJSON, _ := json.Marshal(id)
	err := r.poll(d, func() (bool, string, error) {
		lines := r.agent.StdoutLines()
		for ; seen < len(lines); seen++ {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(lines[seen], &m) == nil && m.Method == "" && string(m.ID) == string(idJSON) {
				return true, "", json.Unmarshal(lines[seen], &resp)
			}
		}
		return false, fmt.Sprintf("the %s response (id %s)", method, id), nil
	}, nil)
	return resp, err
}

// request sends a raw request; expectError says whether it must be
// answered with a JSON-RPC error (else with a result).
func (r *run) request(d deadline, s scenario.Step, expectError bool) error {
	params, err := r.rawParams(s.Params)
	if err != nil {
		return err
	}
	resp, err := r.call(d, s.Method, params)
	switch {
	case err != nil:
		return err
	case expectError && resp.Error == nil:
		return fmt.Errorf("%s answered %s, want a JSON-RPC error", s.Method, short(resp.Result))
	case !expectError && resp.Error != nil:
		return fmt.Errorf("%s answered error %d %q, want a result", s.Method, resp.Error.Code, resp.Error.Message)
	}
	return nil
}

// notify sends a raw notification.
func (r *run) notify(s scenario.Step) error {
	params, err := r.rawParams(s.Params)
	if err != nil {
		return err
	}
	msg := map[string]any{"method": s.Method}
	if params != nil {
		msg["params"] = params
	}
	if err := r.wire.Send(msg); err != nil {
		return r.explain(s.Method, err)
	}
	return nil
}

func (r *run) rawParams(params json.RawMessage) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	b, err := r.expandJSON(params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	return b, nil
}

func short(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// sessionToken is a session placeholder: {{sessionId}} (the current
// session) or {{session:N}} (the n-th, 1-based).
var sessionToken = regexp.MustCompile(`\{\{(sessionId|session:[1-9][0-9]*)\}\}`)

// expandSessions replaces the session placeholders of s with live ids; a
// session that does not exist yet is an error.
func (r *run) expandSessions(s string) (string, error) {
	var bad error
	out := sessionToken.ReplaceAllStringFunc(s, func(tok string) string {
		name := strings.Trim(tok, "{}")
		n := len(r.sessions)
		if rest, ok := strings.CutPrefix(name, "session:"); ok {
			n, _ = strconv.Atoi(rest)
		}
		if n < 1 || n > len(r.sessions) {
			bad = fmt.Errorf("%s: the run has %d session(s)", tok, len(r.sessions))
			return tok
		}
		return r.sessions[n-1]
	})
	return out, bad
}
