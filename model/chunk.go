package model

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Chunk types of the model stream (docs/format.md, "Session log"). A Chunk's JSON form carries
// exactly the keys its type allows; decoding rejects unknown or missing ones.
const (
	BlockStart     = "block-start"     // index, blockType
	TextDelta      = "text-delta"      // index, text
	ReasoningDelta = "reasoning-delta" // index, text
	ToolCallDelta  = "tool-call-delta" // index, id, name?, argumentsDelta
	BlockEnd       = "block-end"       // index
	Usage          = "usage"           // inputTokens, outputTokens
	Finish         = "finish"          // reason, error?, code?
)

// Block types of a block-start chunk.
const (
	BlockText      = "text"
	BlockReasoning = "reasoning"
	BlockToolCall  = "tool-call"
)

// Finish reasons.
const (
	FinishStop      = "stop"
	FinishToolCalls = "tool-calls"
	FinishMaxTokens = "max-tokens"
	FinishError     = "error"
)

// Chunk is one unit of a model stream. Which fields are meaningful depends on
// Type; see the constants above.
type Chunk struct {
	Type           string
	Index          int
	BlockType      string
	Text           string
	ID             string
	Name           string // tool-call-delta: set on the first delta of a call only
	ArgumentsDelta string
	InputTokens    int
	OutputTokens   int
	Reason         string
	Error          string // finish: the error message when Reason is "error"
	Code           string // finish: the provider error code, when the error came from the provider
}

// chunkKeys lists, per type, the required and the optional keys.
var chunkKeys = map[string]struct{ required, optional []string }{
	BlockStart:     {[]string{"index", "blockType"}, nil},
	TextDelta:      {[]string{"index", "text"}, nil},
	ReasoningDelta: {[]string{"index", "text"}, nil},
	ToolCallDelta:  {[]string{"index", "id", "argumentsDelta"}, []string{"name"}},
	BlockEnd:       {[]string{"index"}, nil},
	Usage:          {[]string{"inputTokens", "outputTokens"}, nil},
	Finish:         {[]string{"reason"}, []string{"error", "code"}},
}

var blockTypes = map[string]bool{BlockText: true, BlockReasoning: true, BlockToolCall: true}

var finishReasons = map[string]bool{FinishStop: true, FinishToolCalls: true, FinishMaxTokens: true, FinishError: true}

// MarshalJSON writes exactly the keys of c.Type, in a fixed order.
func (c Chunk) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": c.Type}
	switch c.Type {
	case BlockStart:
		m["index"], m["blockType"] = c.Index, c.BlockType
	case TextDelta, ReasoningDelta:
		m["index"], m["text"] = c.Index, c.Text
	case ToolCallDelta:
		m["index"], m["id"], m["argumentsDelta"] = c.Index, c.ID, c.ArgumentsDelta
		if c.Name != "" {
			m["name"] = c.Name
		}
	case BlockEnd:
		m["index"] = c.Index
	case Usage:
		m["inputTokens"], m["outputTokens"] = c.InputTokens, c.OutputTokens
	case Finish:
		m["reason"] = c.Reason
		if c.Error != "" {
			m["error"] = c.Error
		}
		if c.Code != "" {
			m["code"] = c.Code
		}
	default:
		return nil, fmt.Errorf("unknown chunk %q", c.Type)
	}
	// encoding/json sorts map keys: a stable order for free.
	return strictjson.Encode(m)
}

// UnmarshalJSON decodes strictly: the type must be known and the key set
// exact. Errors name the offending key as a JSON path relative to the chunk
// ("$.type", "$.index").
func (c *Chunk) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("$: chunk must be an object: %w", err)
	}
	var typ string
	if err := json.Unmarshal(raw["type"], &typ); err != nil || typ == "" {
		return fmt.Errorf("$.type: missing or not a string")
	}
	keys, ok := chunkKeys[typ]
	if !ok {
		return fmt.Errorf("$.type: unknown chunk %q", typ)
	}
	if err := checkKeys(raw, keys.required, keys.optional); err != nil {
		return err
	}
	out := Chunk{Type: typ}
	fields := map[string]any{
		"index": &out.Index, "blockType": &out.BlockType, "text": &out.Text,
		"id": &out.ID, "name": &out.Name, "argumentsDelta": &out.ArgumentsDelta,
		"inputTokens": &out.InputTokens, "outputTokens": &out.OutputTokens,
		"reason": &out.Reason, "error": &out.Error, "code": &out.Code,
	}
	for k, v := range raw {
		if k == "type" {
			continue
		}
		if err := json.Unmarshal(v, fields[k]); err != nil {
			return fmt.Errorf("$.%s: %v", k, err)
		}
	}
	if typ == BlockStart && !blockTypes[out.BlockType] {
		return fmt.Errorf("$.blockType: unknown block type %q", out.BlockType)
	}
	if typ == Finish && !finishReasons[out.Reason] {
		return fmt.Errorf("$.reason: unknown finish reason %q", out.Reason)
	}
	*c = out
	return nil
}

// checkKeys reports the first missing required key or unexpected key
// ("type" is always allowed), in sorted order so errors are stable.
func checkKeys(raw map[string]json.RawMessage, required, optional []string) error {
	key, missing := strictjson.KeyProblem(raw, required, append([]string{"type"}, optional...))
	switch {
	case key == "":
		return nil
	case missing:
		return fmt.Errorf("$.%s: missing", key)
	}
	return fmt.Errorf("$.%s: unknown key (allowed: %s)", key, strings.Join(append(append([]string{"type"}, required...), optional...), ", "))
}
