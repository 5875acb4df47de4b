package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/acpsnap/acpsnap/internal/strictjson"
	acp "github.com/coder/acp-go-sdk"
)

// Input is a scenario's input.json (docs/format.md, "Client script"): the steps the harness drives,
// the answers it gives to permission requests, and the client capabilities
// it announces in initialize.
type Input struct {
	Steps              []Step             `json:"steps"`
	PermissionAnswers  []PermissionAnswer `json:"permissionAnswers,omitempty"`
	ClientCapabilities json.RawMessage    `json:"clientCapabilities,omitempty"` // nil: all false
	// ClientAnswers script the harness's answers to agent→client requests
	// it does not serve; nil: every one is answered -32601.
	ClientAnswers []ClientAnswer `json:"clientAnswers,omitempty"`
}

// ClientAnswer answers agent→client requests of one method: with Result,
// or with Error. The entries of a method are used in order; when they run
// out the request is answered -32601.
type ClientAnswer struct {
	Method string          `json:"method"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Step is one entry of Input.Steps; which fields an op takes is in the
// package documentation.
type Step struct {
	Op          string          `json:"op"`
	Text        string          `json:"text,omitempty"`
	Content     json.RawMessage `json:"content,omitempty"`
	Params      json.RawMessage `json:"params,omitempty"`
	WaitForFile string          `json:"waitForFile,omitempty"`
	Path        string          `json:"path,omitempty"`
	MinimumTurn int             `json:"minimumTurn,omitempty"` // 0: 1
	Child       int             `json:"child,omitempty"`       // 0: 1
	Update      string          `json:"update,omitempty"`      // a session/update kind (waitForUpdate)
	Method      string          `json:"method,omitempty"`      // request, requestExpectError, notify
	ModeID      string          `json:"modeId,omitempty"`      // setMode
	ModelID     string          `json:"modelId,omitempty"`     // setModel
	ConfigID    string          `json:"configId,omitempty"`    // setConfigOption
	Value       json.RawMessage `json:"value,omitempty"`       // setConfigOption: a value id (string) or a boolean
	MethodID    string          `json:"methodId,omitempty"`    // authenticate
	Cwd         string          `json:"cwd,omitempty"`         // listSessions
	Session     int             `json:"session,omitempty"`     // loadSession … closeSession: the n-th session (1-based); 0: the current one
	TimeoutMs   int             `json:"timeoutMs,omitempty"`   // 0: the runner's default
	// MCPServers are the MCP servers a newSession declares; the harness
	// hands the agent a recording proxy in front of each (docs/format.md).
	MCPServers []MCPServer `json:"mcpServers,omitempty"`

	// Line is the step's line in input.json (1-based), for messages.
	Line int `json:"-"`
}

// PermissionAnswer answers one session/request_permission by option kind:
// allow_once, allow_always, reject_once or reject_always.
type PermissionAnswer struct {
	Kind string `json:"kind"`
}

// The ops of docs/format.md, "Client script".
const (
	OpInitialize             = "initialize"
	OpNewSession             = "newSession"
	OpNewSessionExpectError  = "newSessionExpectError"
	OpPrompt                 = "prompt"
	OpPromptContent          = "promptContent"
	OpPromptExpectError      = "promptExpectError"
	OpPromptAndCancel        = "promptAndCancel"
	OpCancel                 = "cancel"
	OpWaitForFile            = "waitForFile"
	OpWaitForTurnStart       = "waitForTurnStart"
	OpWaitForTurnEnd         = "waitForTurnEnd"
	OpWaitForSubagentTurnEnd = "waitForSubagentTurnEnd"
	OpWaitForUpdate          = "waitForUpdate"
	OpSetMode                = "setMode"
	OpSetConfigOption        = "setConfigOption"
	OpSetModel               = "setModel"
	OpAuthenticate           = "authenticate"
	OpListSessions           = "listSessions"
	OpLoadSession            = "loadSession"
	OpResumeSession          = "resumeSession"
	OpForkSession            = "forkSession"
	OpCloseSession           = "closeSession"
	OpRequest                = "request"
	OpRequestExpectError     = "requestExpectError"
	OpNotify                 = "notify"
	OpRestartAgent           = "restartAgent"
)

// opFields lists, per op, its required fields and its optional ones
// (timeoutMs is allowed everywhere).
var opFields = map[string]struct{ required, optional []string }{
	OpInitialize:             {},
	OpNewSession:             {optional: []string{"mcpServers"}},
	OpNewSessionExpectError:  {optional: []string{"params"}},
	OpPrompt:                 {required: []string{"text"}},
	OpPromptContent:          {required: []string{"content"}},
	OpPromptExpectError:      {required: []string{"text"}},
	OpPromptAndCancel:        {required: []string{"text"}, optional: []string{"waitForFile"}},
	OpCancel:                 {optional: []string{"waitForFile"}},
	OpWaitForFile:            {required: []string{"path"}},
	OpWaitForTurnStart:       {optional: []string{"minimumTurn"}},
	OpWaitForTurnEnd:         {optional: []string{"minimumTurn"}},
	OpWaitForSubagentTurnEnd: {optional: []string{"child", "minimumTurn"}},
	OpWaitForUpdate:          {required: []string{"update"}},
	OpSetMode:                {required: []string{"modeId"}},
	OpSetConfigOption:        {required: []string{"configId", "value"}},
	OpSetModel:               {required: []string{"modelId"}},
	OpAuthenticate:           {required: []string{"methodId"}},
	OpListSessions:           {optional: []string{"cwd"}},
	OpLoadSession:            {optional: []string{"session"}},
	OpResumeSession:          {optional: []string{"session"}},
	OpForkSession:            {optional: []string{"session"}},
	OpCloseSession:           {optional: []string{"session"}},
	OpRequest:                {required: []string{"method"}, optional: []string{"params"}},
	OpRequestExpectError:     {required: []string{"method"}, optional: []string{"params"}},
	OpNotify:                 {required: []string{"method"}, optional: []string{"params"}},
	OpRestartAgent:           {},
}

var permissionKinds = []string{"allow_once", "allow_always", "reject_once", "reject_always"}

// LoadInput reads and validates the client script at path. Errors carry
// the position and the JSON path of the offending value:
// "scenario: path:line: $.steps[3].op: unknown op \"promt\"" (step indexes
// in JSON paths are 0-based; run errors count steps from 1).
func LoadInput(path string) (*Input, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: load input: %w", err)
	}
	in, err := decodeInput(b, path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return in, nil
}

// inputError is a validation failure at a JSON path.
type inputError struct{ path, msg string }

func (e *inputError) Error() string { return e.path + ": " + e.msg }

func decodeInput(b []byte, name string) (*Input, error) {
	d, _, err := strictjson.Parse(b, name, 0, "$")
	if err != nil {
		return nil, err
	}
	in, ierr := parseInput(b)
	if ierr != nil {
		return nil, d.PathErrorf(ierr.path, "%s", ierr.msg)
	}
	for i := range in.Steps {
		in.Steps[i].Line = d.Line(d.At(fmt.Sprintf("$.steps[%d]", i)))
	}
	return in, nil
}

func parseInput(b []byte) (*Input, *inputError) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil || top == nil {
		return nil, &inputError{"$", "want an object"}
	}
	if err := onlyKeys("$", top, []string{"steps", "permissionAnswers", "clientCapabilities", "clientAnswers"}); err != nil {
		return nil, err
	}
	in := &Input{}
	var steps []json.RawMessage
	if err := field("$.steps", top["steps"], &steps); err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, &inputError{"$.steps", "want at least one step"}
	}
	for i, raw := range steps {
		s, err := parseStep(fmt.Sprintf("$.steps[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		in.Steps = append(in.Steps, s)
	}
	if err := uniqueMCPNames(in.Steps); err != nil {
		return nil, err
	}
	if err := parseAnswers(top["permissionAnswers"], in); err != nil {
		return nil, err
	}
	if err := parseClientAnswers(top["clientAnswers"], in); err != nil {
		return nil, err
	}
	if caps, ok := top["clientCapabilities"]; ok {
		var c acp.ClientCapabilities
		if bytes.TrimSpace(caps)[0] != '{' || json.Unmarshal(caps, &c) != nil {
			return nil, &inputError{"$.clientCapabilities", "want ACP client capabilities (an object)"}
		}
		in.ClientCapabilities = caps
	}
	return in, nil
}

func parseAnswers(raw json.RawMessage, in *Input) *inputError {
	if raw == nil {
		return nil
	}
	return eachObject("$.permissionAnswers", raw, "{kind}", []string{"kind"}, func(p string, a map[string]json.RawMessage) *inputError {
		var kind string
		if err := field(p+".kind", a["kind"], &kind); err != nil {
			return err
		}
		if !slices.Contains(permissionKinds, kind) {
			return &inputError{p + ".kind", fmt.Sprintf("unknown kind %q, want one of %s", kind, strings.Join(permissionKinds, ", "))}
		}
		in.PermissionAnswers = append(in.PermissionAnswers, PermissionAnswer{Kind: kind})
		return nil
	})
}

// parseStep checks the op and its key set, then decodes each field.
func parseStep(p string, raw json.RawMessage) (Step, *inputError) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Step{}, &inputError{p, "want an object"}
	}
	var s Step
	if err := field(p+".op", m["op"], &s.Op); err != nil {
		return s, err
	}
	spec, ok := opFields[s.Op]
	if !ok {
		return s, &inputError{p + ".op", fmt.Sprintf("unknown op %q", s.Op)}
	}
	allowed := append([]string{"op", "timeoutMs"}, spec.required...)
	allowed = append(allowed, spec.optional...)
	if err := onlyKeys(p, m, allowed); err != nil {
		err.msg += " for op " + s.Op
		return s, err
	}
	for _, k := range spec.required {
		if _, ok := m[k]; !ok {
			return s, &inputError{p, fmt.Sprintf("op %s needs %q", s.Op, k)}
		}
	}
	for k, v := range m {
		if err := s.set(p+"."+k, k, v); err != nil {
			return s, err
		}
	}
	return s, nil
}

// set decodes and checks one step field.
func (s *Step) set(p, key string, v json.RawMessage) *inputError {
	switch key {
	case "op":
		return nil
	case "text":
		return nonEmpty(p, v, &s.Text)
	case "waitForFile":
		if err := nonEmpty(p, v, &s.WaitForFile); err != nil {
			return err
		}
		return relPath(p, s.WaitForFile)
	case "path":
		if err := nonEmpty(p, v, &s.Path); err != nil {
			return err
		}
		return relPath(p, s.Path)
	case "content":
		var blocks []acp.ContentBlock
		if err := field(p, v, &blocks); err != nil || len(blocks) == 0 {
			return &inputError{p, "want a non-empty array of ACP content blocks"}
		}
		s.Content = v
	case "params":
		if err := s.params(p, v); err != nil {
			return err
		}
		s.Params = v
	case "method":
		return nonEmpty(p, v, &s.Method)
	case "modeId":
		return nonEmpty(p, v, &s.ModeID)
	case "modelId":
		return nonEmpty(p, v, &s.ModelID)
	case "configId":
		return nonEmpty(p, v, &s.ConfigID)
	case "methodId":
		return nonEmpty(p, v, &s.MethodID)
	case "cwd":
		return nonEmpty(p, v, &s.Cwd)
	case "session":
		return positive(p, v, &s.Session)
	case "value":
		var str string
		var b bool
		if json.Unmarshal(v, &str) != nil && json.Unmarshal(v, &b) != nil {
			return &inputError{p, "want a value id (a string) or a boolean"}
		}
		s.Value = v
	case "update":
		return nonEmpty(p, v, &s.Update)
	case "minimumTurn":
		return positive(p, v, &s.MinimumTurn)
	case "child":
		return positive(p, v, &s.Child)
	case "timeoutMs":
		return positive(p, v, &s.TimeoutMs)
	case "mcpServers":
		return parseMCPServers(p, v, &s.MCPServers)
	}
	return nil
}

// params checks a step's params: session/new params for
// newSessionExpectError, JSON-RPC params (an object or an array) for the
// raw ops.
func (s *Step) params(p string, v json.RawMessage) *inputError {
	if s.Op == OpNewSessionExpectError {
		return sessionNewParams(p, v)
	}
	if t := bytes.TrimSpace(v); len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return &inputError{p, "want JSON-RPC params: an object or an array"}
	}
	return nil
}

// ClientServed are the agent→client methods the harness serves itself
// (docs/format.md, "Client script"); clientAnswers cannot script them.
var ClientServed = []string{
	acp.ClientMethodSessionRequestPermission, acp.ClientMethodSessionUpdate,
	acp.ClientMethodFsReadTextFile, acp.ClientMethodFsWriteTextFile,
	acp.ClientMethodTerminalCreate, acp.ClientMethodTerminalOutput, acp.ClientMethodTerminalWaitForExit,
	acp.ClientMethodTerminalKill, acp.ClientMethodTerminalRelease,
}

func parseClientAnswers(raw json.RawMessage, in *Input) *inputError {
	if raw == nil {
		return nil
	}
	return eachObject("$.clientAnswers", raw, "{method, result | error}", []string{"method", "result", "error"}, func(p string, a map[string]json.RawMessage) *inputError {
		var ans ClientAnswer
		if err := nonEmpty(p+".method", a["method"], &ans.Method); err != nil {
			return err
		}
		if slices.Contains(ClientServed, ans.Method) {
			return &inputError{p + ".method", fmt.Sprintf("the harness serves %s itself", ans.Method)}
		}
		_, hasResult := a["result"]
		_, hasError := a["error"]
		if hasResult == hasError {
			return &inputError{p, "want exactly one of \"result\" and \"error\""}
		}
		ans.Result = a["result"]
		if hasError {
			if err := rpcError(p+".error", a["error"], &ans); err != nil {
				return err
			}
		}
		in.ClientAnswers = append(in.ClientAnswers, ans)
		return nil
	})
}

func rpcError(p string, raw json.RawMessage, ans *ClientAnswer) *inputError {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return &inputError{p, "want a JSON-RPC error object {code, message, data?}"}
	}
	if err := onlyKeys(p, m, []string{"code", "message", "data"}); err != nil {
		return err
	}
	ans.Error = &RPCError{Data: m["data"]}
	if err := field(p+".code", m["code"], &ans.Error.Code); err != nil {
		return err
	}
	return nonEmpty(p+".message", m["message"], &ans.Error.Message)
}

// sessionNewKeys are the top-level keys of session/new params that reach
// the agent: the SDK sends acp.NewSessionRequest, which drops any other.
var sessionNewKeys = jsonKeys(reflect.TypeFor[acp.NewSessionRequest]())

// sessionNewParams checks newSessionExpectError params: an object whose
// keys acp.NewSessionRequest carries and whose values fit it, so what the
// scenario says is what goes on the wire.
func sessionNewParams(p string, v json.RawMessage) *inputError {
	var obj map[string]json.RawMessage
	if err := field(p, v, &obj); err != nil || obj == nil {
		return &inputError{p, "want an object"}
	}
	if err := onlyKeys(p, obj, sessionNewKeys); err != nil {
		err.msg += fmt.Sprintf(" (the ACP SDK would not send it); session/new takes %s", strings.Join(sessionNewKeys, ", "))
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		var req acp.NewSessionRequest
		one, _ := json.Marshal(map[string]json.RawMessage{k: obj[k]})
		if err := json.Unmarshal(one, &req); err != nil {
			return &inputError{p + "." + k, fmt.Sprintf("does not fit session/new: %v", err)}
		}
	}
	return nil
}

// jsonKeys are the JSON names of a struct's fields, sorted.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	sort.Strings(keys)
	return keys
}

// eachObject decodes v, at path p, as an array of objects that have only
// the keys allowed (shape names them in the message for an element that
// is no object), and calls fn with each element's path and members, in
// order; the first error stops it.
func eachObject(p string, v json.RawMessage, shape string, allowed []string, fn func(p string, m map[string]json.RawMessage) *inputError) *inputError {
	var raws []json.RawMessage
	if err := field(p, v, &raws); err != nil {
		return err
	}
	for i, raw := range raws {
		ep := fmt.Sprintf("%s[%d]", p, i)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return &inputError{ep, "want an object " + shape}
		}
		if err := onlyKeys(ep, m, allowed); err != nil {
			return err
		}
		if err := fn(ep, m); err != nil {
			return err
		}
	}
	return nil
}

func onlyKeys(p string, m map[string]json.RawMessage, allowed []string) *inputError {
	var bad []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return &inputError{p + "." + bad[0], "unknown key"}
}

func field(p string, v json.RawMessage, dst any) *inputError {
	if v == nil {
		return &inputError{p, "missing"}
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return &inputError{p, fmt.Sprintf("want %s", kindOf(dst))}
	}
	return nil
}

func kindOf(dst any) string {
	switch dst.(type) {
	case *string:
		return "a string"
	case *int:
		return "an integer"
	default:
		return "an array"
	}
}

func nonEmpty(p string, v json.RawMessage, dst *string) *inputError {
	if err := field(p, v, dst); err != nil {
		return err
	}
	if *dst == "" {
		return &inputError{p, "must not be empty"}
	}
	return nil
}

func positive(p string, v json.RawMessage, dst *int) *inputError {
	if err := field(p, v, dst); err != nil {
		return err
	}
	if *dst < 1 {
		return &inputError{p, fmt.Sprintf("is %d, want >= 1", *dst)}
	}
	return nil
}

func relPath(p, path string) *inputError {
	if filepath.IsAbs(path) || !filepath.IsLocal(path) {
		return &inputError{p, fmt.Sprintf("%q must be a relative path inside the cwd", path)}
	}
	return nil
}
