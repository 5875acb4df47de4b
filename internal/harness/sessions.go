package harness

import (
	"encoding/json"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// sessionOps are the ops that drive one typed ACP method through the SDK
// (docs/format.md, "Client script"); each must be answered with a result.
var sessionOps = map[string]func(r *run, d deadline, s scenario.Step) error{
	scenario.OpSetMode: func(r *run, d deadline, s scenario.Step) error {
		return sessionCall(r, d, s, acp.AgentMethodSessionSetMode, func(id acp.SessionId) (acp.SetSessionModeResponse, error) {
			return r.conn.SetSessionMode(r.bg(), acp.SetSessionModeRequest{SessionId: id, ModeId: acp.SessionModeId(s.ModeID)})
		})
	},
	scenario.OpSetConfigOption: func(r *run, d deadline, s scenario.Step) error {
		return sessionCall(r, d, s, acp.AgentMethodSessionSetConfigOption, func(id acp.SessionId) (acp.SetSessionConfigOptionResponse, error) {
			return r.conn.SetSessionConfigOption(r.bg(), configOption(id, s))
		})
	},
	scenario.OpSetModel: func(r *run, d deadline, s scenario.Step) error {
		return sessionCall(r, d, s, acp.AgentMethodSessionSetModel, func(id acp.SessionId) (acp.UnstableSetSessionModelResponse, error) {
			return r.conn.UnstableSetSessionModel(r.bg(), acp.UnstableSetSessionModelRequest{SessionId: id, ModelId: acp.UnstableModelId(s.ModelID)})
		})
	},
	scenario.OpAuthenticate: func(r *run, d deadline, s scenario.Step) error {
		_, err := await(r, d, acp.AgentMethodAuthenticate, func() (acp.AuthenticateResponse, error) {
			return r.conn.Authenticate(r.bg(), acp.AuthenticateRequest{MethodId: s.MethodID})
		})
		return r.explain(acp.AgentMethodAuthenticate, err)
	},
	scenario.OpListSessions: func(r *run, d deadline, s scenario.Step) error {
		req := acp.ListSessionsRequest{}
		if s.Cwd != "" {
			req.Cwd = acp.Ptr(r.expand(s.Cwd))
		}
		_, err := await(r, d, acp.AgentMethodSessionList, func() (acp.ListSessionsResponse, error) {
			return r.conn.ListSessions(r.bg(), req)
		})
		return r.explain(acp.AgentMethodSessionList, err)
	},
	scenario.OpLoadSession: func(r *run, d deadline, s scenario.Step) error {
		return sessionCall(r, d, s, acp.AgentMethodSessionLoad, func(id acp.SessionId) (acp.LoadSessionResponse, error) {
			return r.conn.LoadSession(r.bg(), acp.LoadSessionRequest{SessionId: id, Cwd: r.roots.Cwd, McpServers: []acp.McpServer{}})
		})
	},
	scenario.OpResumeSession: func(r *run, d deadline, s scenario.Step) error {
		return sessionCall(r, d, s, acp.AgentMethodSessionResume, func(id acp.SessionId) (acp.ResumeSessionResponse, error) {
			return r.conn.ResumeSession(r.bg(), acp.ResumeSessionRequest{SessionId: id, Cwd: r.roots.Cwd})
		})
	},
	scenario.OpForkSession: func(r *run, d deadline, s scenario.Step) error {
		var forked acp.SessionId
		err := sessionCall(r, d, s, acp.AgentMethodSessionFork, func(id acp.SessionId) (acp.UnstableForkSessionResponse, error) {
			resp, err := r.conn.UnstableForkSession(r.bg(), acp.UnstableForkSessionRequest{SessionId: id, Cwd: r.roots.Cwd})
			forked = resp.SessionId
			return resp, err
		})
		if err == nil {
			r.addSession(string(forked))
		}
		return err
	},
	scenario.OpCloseSession: func(r *run, d deadline, s scenario.Step) error {
		return sessionCall(r, d, s, acp.AgentMethodSessionClose, func(id acp.SessionId) (acp.CloseSessionResponse, error) {
			return r.conn.CloseSession(r.bg(), acp.CloseSessionRequest{SessionId: id})
		})
	},
}

// sessionCall makes call for the step's session (its session field, else
// the current one), which becomes the current session.
func sessionCall[T any](r *run, d deadline, s scenario.Step, method string, call func(acp.SessionId) (T, error)) error {
	id, err := r.target(s.Session)
	if err != nil {
		return err
	}
	_, err = await(r, d, method, func() (T, error) { return call(id) })
	return r.explain(method, err)
}

// target is the n-th session (1-based), made the current one; 0: the
// current session.
func (r *run) target(n int) (acp.SessionId, error) {
	if n == 0 {
		return r.session()
	}
	if n > len(r.sessions) {
		return "", fmt.Errorf("session %d: the run has %d session(s)", n, len(r.sessions))
	}
	r.current = n - 1
	return acp.SessionId(r.sessions[n-1]), nil
}

// addSession remembers a new session id and makes it the current one.
func (r *run) addSession(id string) {
	r.sessions = append(r.sessions, id)
	r.current = len(r.sessions) - 1
}

// configOption is the set_config_option request of a step: a boolean
// value, or a value id.
func configOption(id acp.SessionId, s scenario.Step) acp.SetSessionConfigOptionRequest {
	var b bool
	if json.Unmarshal(s.Value, &b) == nil {
		return acp.SetSessionConfigOptionRequest{Boolean: &acp.SetSessionConfigOptionBoolean{
			SessionId: id, ConfigId: acp.SessionConfigId(s.ConfigID), Type: "boolean", Value: b}}
	}
	var v string
	json.Unmarshal(s.Value, &v)
	return acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: acp.SessionConfigId(s.ConfigID), Value: acp.SessionConfigValueId(v)}}
}
