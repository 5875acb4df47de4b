package replay

import (
	"encoding/json"
	"fmt"

	"github.com/acpsnap/acpsnap/model"
)

// RequestText renders a model request as the JSON text that
// {{fromRequest:<regex>}} placeholders are matched against (docs/format.md,
// "Request placeholders"): one object with the members model, system,
// messages (role, content, reasoning, toolCalls, toolCallId), tools (name,
// description, parameters) and maxTokens, in that order, compact, strings
// JSON-escaped.
func RequestText(req model.Request) []byte {
	b, err := json.Marshal(struct {
		Model     string           `json:"model"`
		System    string           `json:"system"`
		Messages  []model.Message  `json:"messages"`
		Tools     []model.ToolSpec `json:"tools"`
		MaxTokens int              `json:"maxTokens,omitempty"`
	}{req.Model, req.System, req.Messages, req.Tools, req.MaxTokens})
	if err != nil { // a tool schema that is not JSON: match the rest
		return []byte(fmt.Sprintf(`{"model":%q,"system":%q}`, req.Model, req.System))
	}
	return b
}

// expandRequest replaces the {{fromRequest:<regex>}} placeholders of an
// entry's chunks with the first capture group of each regex applied to the
// live request text (StreamRequest.Request).
func expandRequest(e Entry, request []byte) (Entry, error) {
	var err error
	ex := func(s string) string {
		if err != nil {
			return s
		}
		var out string
		out, err = ExpandPlaceholders(s, request)
		return out
	}
	out := e.mapStrings(ex)
	return out, err
}

// mapStrings returns e with f applied to every served string: a throw's
// message and each chunk's text, id, name, argumentsDelta and error.
func (e Entry) mapStrings(f func(string) string) Entry {
	out := e
	out.Message = f(e.Message)
	out.Chunks = make([]model.Chunk, len(e.Chunks))
	for i, c := range e.Chunks {
		c.Text, c.ID, c.Name, c.ArgumentsDelta, c.Error = f(c.Text), f(c.ID), f(c.Name), f(c.ArgumentsDelta), f(c.Error)
		out.Chunks[i] = c
	}
	return out
}
