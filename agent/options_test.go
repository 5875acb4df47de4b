package agent

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// TestSessionOptionsRefuse: set_config_option and set_model refuse what
// the agent does not have, with -32602 and a message that says why.
func TestSessionOptionsRefuse(t *testing.T) {
	r := newRig(t, newScript().provider(), nil, nil)
	sid := acp.SessionId(r.session(acp.ClientCapabilities{}))
	value := func(id, v string) acp.SetSessionConfigOptionRequest {
		return acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{SessionId: sid, ConfigId: acp.SessionConfigId(id), Value: acp.SessionConfigValueId(v)}}
	}
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"boolean", func() error {
			_, err := r.conn.SetSessionConfigOption(r.ctx(), acp.SetSessionConfigOptionRequest{Boolean: &acp.SetSessionConfigOptionBoolean{SessionId: sid, ConfigId: "permission", Type: "boolean", Value: true}})
			return err
		}, "takes a value id, not a boolean"},
		{"unknown option", func() error { _, err := r.conn.SetSessionConfigOption(r.ctx(), value("colour", "red")); return err }, `unknown config option \"colour\"`},
		{"unknown value", func() error {
			_, err := r.conn.SetSessionConfigOption(r.ctx(), value("permission", "never"))
			return err
		}, `unknown value \"never\"`},
		{"unknown session", func() error {
			_, err := r.conn.UnstableSetSessionModel(r.ctx(), acp.UnstableSetSessionModelRequest{SessionId: "nope", ModelId: "m"})
			return err
		}, `unknown session \"nope\"`},
		{"close unknown", func() error {
			_, err := r.conn.CloseSession(r.ctx(), acp.CloseSessionRequest{SessionId: "nope"})
			return err
		}, `unknown session \"nope\"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || !strings.Contains(err.Error(), "-32602") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want -32602 containing %s", err, tc.want)
			}
		})
	}
	resp, err := r.conn.SetSessionConfigOption(r.ctx(), value("permission", "ask"))
	if err != nil || len(resp.ConfigOptions) != 1 || resp.ConfigOptions[0].Select.CurrentValue != "ask" {
		t.Fatalf("set permission=ask: %+v, %v", resp, err)
	}
}
