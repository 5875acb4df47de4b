package agent

import (
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/model"
)

// permissionKinds are the options offered, in this order; each option's
// id is its kind, so clients and logs can answer and read by kind.
var permissionKinds = []acp.PermissionOptionKind{
	acp.PermissionOptionKindAllowOnce,
	acp.PermissionOptionKindAllowAlways,
	acp.PermissionOptionKindRejectOnce,
	acp.PermissionOptionKindRejectAlways,
}

var permissionNames = map[acp.PermissionOptionKind]string{
	acp.PermissionOptionKindAllowOnce:    "Allow once",
	acp.PermissionOptionKindAllowAlways:  "Always allow",
	acp.PermissionOptionKindRejectOnce:   "Reject",
	acp.PermissionOptionKindRejectAlways: "Always reject",
}

// outcomeCancelled is the approval/decided outcome when the client
// answered "cancelled" or the turn was cancelled while asking.
const outcomeCancelled = "cancelled"

// permit decides whether a call of an asking tool may run. In "auto" mode,
// in subagents, and for tools with a remembered allow_always/reject_always
// answer it does not ask. Otherwise it asks the client through
// session/request_permission, logging approval/asked and approval/decided.
// An error means the client could not be asked.
func (t *turn) permit(c model.ToolCall, tl *tool) (bool, error) {
	s := t.s
	if !s.primary || s.permissionMode() != PermissionAsk {
		return true, nil
	}
	if allowed, ok := s.decision(tl.spec.Name); ok {
		return allowed, nil
	}
	approvalID := s.srv.cfg.NewID()
	kinds := make([]string, len(permissionKinds))
	opts := make([]acp.PermissionOption, len(permissionKinds))
	for i, k := range permissionKinds {
		kinds[i] = string(k)
		opts[i] = acp.PermissionOption{Kind: k, Name: permissionNames[k], OptionId: acp.PermissionOptionId(k)}
	}
	s.event(evApprovalAsked, approvalAskedData{Turn: t.n, CallID: c.ID, ApprovalID: approvalID, Options: kinds})
	resp, err := s.srv.conn.RequestPermission(t.ctx, acp.RequestPermissionRequest{
		SessionId: acp.SessionId(s.id),
		ToolCall:  t.permissionToolCall(c),
		Options:   opts,
	})
	outcome := outcomeCancelled
	switch {
	case t.stopped():
	case err != nil:
		outcome = "error"
	case resp.Outcome.Selected != nil:
		outcome = string(resp.Outcome.Selected.OptionId)
	}
	s.event(evApprovalDecided, approvalDecidedData{Turn: t.n, CallID: c.ID, ApprovalID: approvalID, Outcome: outcome})
	if t.stopped() {
		return false, errAborted
	}
	if err != nil {
		return false, fmt.Errorf("permission request failed: %v", err)
	}
	return s.apply(tl.spec.Name, outcome)
}

// apply turns the chosen option into a decision, remembering the
// "always" ones for the session.
func (s *session) apply(tool, outcome string) (bool, error) {
	switch acp.PermissionOptionKind(outcome) {
	case acp.PermissionOptionKindAllowOnce:
		return true, nil
	case acp.PermissionOptionKindAllowAlways:
		s.remember(tool, true)
		return true, nil
	case acp.PermissionOptionKindRejectOnce:
		return false, nil
	case acp.PermissionOptionKindRejectAlways:
		s.remember(tool, false)
		return false, nil
	case outcomeCancelled:
		return false, nil
	}
	return false, fmt.Errorf("permission request failed: unknown option %q", outcome)
}

// permissionToolCall describes the call in a permission request, as its
// tool_call announcement did.
func (t *turn) permissionToolCall(c model.ToolCall) acp.ToolCallUpdate {
	u := t.startUpdate(c).ToolCall
	return acp.ToolCallUpdate{
		ToolCallId: u.ToolCallId,
		Title:      acp.Ptr(u.Title),
		Kind:       acp.Ptr(u.Kind),
		Status:     acp.Ptr(acp.ToolCallStatusPending),
		RawInput:   u.RawInput,
	}
}
