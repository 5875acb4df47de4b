package agent

import (
	"context"
	"fmt"

	acp "github.com/coder/acp-go-sdk"
)

// configPermission is the one session config option: the permission mode,
// the same setting as the session mode.
const configPermission = "permission"

// SetSessionConfigOption sets the "permission" option ("auto" | "ask", as
// session/set_mode does) and answers every option with its value.
func (srv *server) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return acp.SetSessionConfigOptionResponse{}, invalid("config option %q takes a value id, not a boolean", configPermission)
	}
	v := p.ValueId
	s := srv.primary(string(v.SessionId))
	switch {
	case s == nil:
		return acp.SetSessionConfigOptionResponse{}, invalid("unknown session %q", v.SessionId)
	case v.ConfigId != configPermission:
		return acp.SetSessionConfigOptionResponse{}, invalid("unknown config option %q (want %q)", v.ConfigId, configPermission)
	case v.Value != PermissionAuto && v.Value != PermissionAsk:
		return acp.SetSessionConfigOptionResponse{}, invalid("unknown value %q (want %q or %q)", v.Value, PermissionAuto, PermissionAsk)
	}
	s.setMode(string(v.Value))
	return acp.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

// configOptions are the session's config options and their values.
func (s *session) configOptions() []acp.SessionConfigOption {
	values := acp.SessionConfigSelectOptionsUngrouped{}
	for _, m := range s.modeState().AvailableModes {
		values = append(values, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	return []acp.SessionConfigOption{{Select: &acp.SessionConfigOptionSelect{
		Id: configPermission, Name: "Permission", Type: "select", Category: acp.Ptr(acp.SessionConfigOptionCategoryMode),
		CurrentValue: acp.SessionConfigValueId(s.permissionMode()),
		Options:      acp.SessionConfigSelectOptions{Ungrouped: &values},
	}}}
}

// UnstableSetSessionModel names the model the session's next model calls
// ask for (logged in their request/header events).
func (srv *server) UnstableSetSessionModel(ctx context.Context, p acp.UnstableSetSessionModelRequest) (acp.UnstableSetSessionModelResponse, error) {
	s := srv.primary(string(p.SessionId))
	if s == nil {
		return acp.UnstableSetSessionModelResponse{}, invalid("unknown session %q", p.SessionId)
	}
	if p.ModelId == "" {
		return acp.UnstableSetSessionModelResponse{}, invalid("modelId is empty")
	}
	s.mu.Lock()
	s.model = string(p.ModelId)
	s.mu.Unlock()
	return acp.UnstableSetSessionModelResponse{}, nil
}

// modelName is the model the session's calls ask for: set_model's, else
// Config.Model.
func (s *session) modelName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.model != "" {
		return s.model
	}
	return s.srv.cfg.Model
}

// invalid is a -32602 error whose data.error is the message.
func invalid(format string, args ...any) error {
	return acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf(format, args...)})
}
