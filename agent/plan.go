package agent

import (
	"errors"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/model"
)

var todoWriteTool = &tool{
	spec: model.ToolSpec{
		Name:        toolTodoWrite,
		Description: "Replace the plan shown to the user with this todo list. Send the whole list every time; mark items in_progress and completed as you go.",
		Parameters: []byte(`{"type":"object","properties":{` +
			`"todos":{"type":"array","items":{"type":"object","properties":{` +
			`"content":{"type":"string","description":"what to do"},` +
			`"status":{"type":"string","enum":["pending","in_progress","completed"]}},` +
			`"required":["content","status"],"additionalProperties":false}}},` +
			`"required":["todos"],"additionalProperties":false}`),
	},
	kind:  acp.ToolKindThink,
	title: func(map[string]any) string { return "Update plan" },
	run:   todoWrite,
}

// todoWrite validates the todos and sends them to the client as an ACP
// plan update (every entry at medium priority).
func todoWrite(t *turn, c model.ToolCall) (string, error) {
	var a struct {
		Todos *[]struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"todos"`
	}
	if err := decodeArgs(c.Arguments, &a); err != nil {
		return "", err
	}
	if a.Todos == nil {
		return "", errors.New("todos is required")
	}
	entries := make([]acp.PlanEntry, 0, len(*a.Todos))
	counts := map[acp.PlanEntryStatus]int{}
	for i, td := range *a.Todos {
		st := acp.PlanEntryStatus(td.Status)
		switch st {
		case acp.PlanEntryStatusPending, acp.PlanEntryStatusInProgress, acp.PlanEntryStatusCompleted:
		default:
			return "", fmt.Errorf("todos[%d].status: %q is not pending, in_progress or completed", i, td.Status)
		}
		counts[st]++
		entries = append(entries, acp.PlanEntry{Content: td.Content, Status: st, Priority: acp.PlanEntryPriorityMedium})
	}
	t.s.notify(acp.UpdatePlan(entries...))
	return fmt.Sprintf("plan updated: %d todos (%d completed, %d in progress, %d pending)",
		len(entries), counts[acp.PlanEntryStatusCompleted], counts[acp.PlanEntryStatusInProgress], counts[acp.PlanEntryStatusPending]), nil
}
