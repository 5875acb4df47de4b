package agent

import (
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// systemPrompt is the system message of a client session.
func systemPrompt(cwd string) string {
	return "You are acpsnap's reference coding agent, working in the directory " + cwd + ".\n" +
		"Use the tools to inspect and change files there; paths are relative to that directory. " +
		"Use todo_write to show a plan for multi-step work and task to delegate read-only investigations. " +
		"Answer briefly when you are done."
}

// childSystemPrompt is the system message of a subagent.
func childSystemPrompt(cwd string) string {
	return "You are a read-only research subagent of acpsnap's reference coding agent, working in the directory " + cwd + ".\n" +
		"Use read_file and list_dir to answer the task. Your final message is your report: make it complete and short."
}

// promptText flattens the prompt's content blocks into the user message the
// model sees: text as is, resources as their text, other blocks as a note.
func promptText(blocks []acp.ContentBlock) string {
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, "[resource "+b.ResourceLink.Name+": "+b.ResourceLink.Uri+"]")
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, "[resource "+r.Uri+"]\n"+r.Text)
		case b.Image != nil:
			parts = append(parts, "[image omitted]")
		case b.Audio != nil:
			parts = append(parts, "[audio omitted]")
		default:
			parts = append(parts, "[content omitted]")
		}
	}
	return strings.Join(parts, "\n")
}
