package scenario_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// writeFile writes content to dir/rel and returns the path.
func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadManifest(t *testing.T) {
	const good = "version: 1\nscenario: text-turn\nreason: one plain turn\nrecording: live\n"
	tests := []struct {
		name    string
		yaml    string
		wantErr string // "" means success; otherwise the text after the path
	}{
		{"minimal", good, ""},
		{"full", good + "replay: { override: true }\npermission: ask\nenv: { SOME_VAR: value }\nplatform: posix\n", ""},
		{"unknown key", good + "permision: ask\n", ":5: field permision not found"},
		{"unknown nested key", good + "replay: { overide: true }\n", ":5: field overide not found"},
		{"wrong version", strings.Replace(good, "version: 1", "version: 2", 1), ":1: version is 2, want 1"},
		{"folder mismatch", strings.Replace(good, "text-turn", "other", 1), `:2: scenario "other" does not match its folder "text-turn"`},
		{"not kebab", strings.Replace(good, "text-turn", "Text_Turn", 1), `:2: scenario "Text_Turn" is not kebab-case`},
		{"no reason", strings.Replace(good, "reason: one plain turn", "reason: ' '", 1), ":3: reason is required"},
		{"bad recording", strings.Replace(good, "live", "replayed", 1), `:4: recording is "replayed", want live or authored`},
		{"no recording", strings.Replace(good, "recording: live\n", "", 1), `:1: recording is "", want live or authored`},
		{"bad permission", good + "permission: never\n", `:5: permission is "never", want auto or ask`},
		{"bad platform", good + "platform: windows\n", `:5: platform is "windows", want posix or nothing`},
		{"secret in env", good + "env: { DEEPSEEK_API_KEY: x }\n", ":5: env: DEEPSEEK_API_KEY is a secret"},
		{"harness env", good + "env: { ACPSNAP_MODE: record }\n", ":5: env: ACPSNAP_MODE is set by the harness"},
		{"private TMPDIR", good + "env: { TMPDIR: /tmp }\n", ":5: env: TMPDIR is set by the harness"},
		{"TZ", good + "env: { TZ: Europe/Paris }\n", ":5: env: TZ is set by the harness"},
		{"PATH", good + "env: { PATH: /evil }\n", ":5: env: PATH is set by the harness"},
		{"LANG", good + "env: { LANG: C }\n", ":5: env: LANG is set by the harness"},
		{"bad type", good + "env: [a, b]\n", ":5: cannot unmarshal !!seq into map[string]string"},
		{"empty", "", ":1: empty manifest"},
		{"two documents", good + "---\n" + good, "more than one YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "text-turn/snapshot.yml", tt.yaml)
			m, err := scenario.LoadManifest(path)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if m.Scenario != "text-turn" || m.Version != 1 {
					t.Errorf("manifest %+v", m)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), path+tt.wantErr) && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want it to contain %q", err, path+tt.wantErr)
			}
			if strings.HasPrefix(tt.wantErr, ":") && !strings.Contains(err.Error(), path+tt.wantErr) {
				t.Errorf("error %v lacks the position %q", err, path+tt.wantErr)
			}
		})
	}
}

func TestLoadManifestFull(t *testing.T) {
	path := writeFile(t, t.TempDir(), "permission-rejected/snapshot.yml",
		"version: 1\nscenario: permission-rejected\nreason: r\nrecording: authored\nreplay: { override: true }\npermission: ask\nenv: { A: b }\nplatform: posix\n")
	m, err := scenario.LoadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	want := scenario.Manifest{Version: 1, Scenario: "permission-rejected", Reason: "r", Recording: "authored",
		Permission: "ask", Env: map[string]string{"A": "b"}, Platform: "posix"}
	want.Replay.Override = true
	if diff := cmp.Diff(want, *m); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
}

func TestLoadInput(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string // after the path; "" means success
	}{
		{"every op", `{"steps":[
			{"op":"initialize"},{"op":"newSession"},{"op":"newSessionExpectError","params":{"cwd":"rel","additionalDirectories":["{{cwd}}/x"],"_meta":{}}},
			{"op":"prompt","text":"hi"},{"op":"promptContent","content":[{"type":"text","text":"x"}]},
			{"op":"promptExpectError","text":"x"},{"op":"promptAndCancel","text":"x","waitForFile":"m"},
			{"op":"cancel"},{"op":"waitForFile","path":"a/b"},{"op":"waitForTurnStart","minimumTurn":2},
			{"op":"waitForTurnEnd","timeoutMs":100},{"op":"waitForSubagentTurnEnd","child":2,"minimumTurn":1},
			{"op":"waitForUpdate","update":"available_commands_update"}],
			"permissionAnswers":[{"kind":"reject_once"}],"clientCapabilities":{"fs":{"readTextFile":true}}}`, ""},
		{"unknown op", "{\"steps\":[\n{\"op\":\"initialize\"},\n{\"op\":\"newSession\"},\n{\"op\":\"prompt\",\"text\":\"x\"},\n{\"op\":\"promt\"}]}",
			`:5: $.steps[3].op: unknown op "promt"`},
		{"duplicate key", "{\"steps\":[{\"op\":\"prompt\",\n\"text\":\"a\",\n\"text\":\"b\"}]}", ":3: $.steps[0].text: duplicate key"},
		{"unknown top key", "{\"steps\":[{\"op\":\"initialize\"}],\n\"permisionAnswers\":[]}", ":2: $.permisionAnswers: unknown key"},
		{"field of another op", "{\"steps\":[\n{\"op\":\"cancel\",\n\"text\":\"x\"}]}", ":3: $.steps[0].text: unknown key for op cancel"},
		{"missing text", "{\"steps\":[\n{\"op\":\"prompt\"}]}", `:2: $.steps[0]: op prompt needs "text"`},
		{"missing update", "{\"steps\":[\n{\"op\":\"waitForUpdate\"}]}", `:2: $.steps[0]: op waitForUpdate needs "update"`},
		{"empty text", "{\"steps\":[\n{\"op\":\"prompt\",\"text\":\"\"}]}", ":2: $.steps[0].text: must not be empty"},
		{"wrong type", "{\"steps\":[\n{\"op\":\"waitForTurnEnd\",\n\"minimumTurn\":\"2\"}]}", ":3: $.steps[0].minimumTurn: want an integer"},
		{"zero turn", "{\"steps\":[{\"op\":\"waitForTurnEnd\",\"minimumTurn\":0}]}", ":1: $.steps[0].minimumTurn: is 0, want >= 1"},
		{"path escapes", "{\"steps\":[{\"op\":\"waitForFile\",\"path\":\"../x\"}]}", `:1: $.steps[0].path: "../x" must be a relative path inside the cwd`},
		{"absolute marker", "{\"steps\":[{\"op\":\"cancel\",\"waitForFile\":\"/tmp/x\"}]}", `$.steps[0].waitForFile: "/tmp/x" must be a relative path`},
		{"bad content", "{\"steps\":[{\"op\":\"promptContent\",\"content\":\"hi\"}]}", "$.steps[0].content: want a non-empty array of ACP content blocks"},
		{"no steps", `{"steps":[]}`, "$.steps: want at least one step"},
		{"bad answer", "{\"steps\":[{\"op\":\"initialize\"}],\n\"permissionAnswers\":[\n{\"kind\":\"yes\"}]}", `:3: $.permissionAnswers[0].kind: unknown kind "yes"`},
		{"answer not an object", `{"steps":[{"op":"initialize"}],"permissionAnswers":[null]}`, "$.permissionAnswers[0]: want an object {kind}"},
		{"answer unknown key", `{"steps":[{"op":"initialize"}],"permissionAnswers":[{"kind":"allow_once","x":1}]}`, "$.permissionAnswers[0].x: unknown key"},
		{"client answer not an object", `{"steps":[{"op":"initialize"}],"clientAnswers":[[]]}`, "$.clientAnswers[0]: want an object {method, result | error}"},
		{"bad capabilities", `{"steps":[{"op":"initialize"}],"clientCapabilities":[]}`, "$.clientCapabilities: want ACP client capabilities"},
		{"unknown session/new key", "{\"steps\":[{\"op\":\"newSessionExpectError\",\"params\":{\n\"cwd\":\"/x\",\n\"unsupportedOption\":true}}]}",
			":3: $.steps[0].params.unsupportedOption: unknown key (the ACP SDK would not send it); session/new takes _meta, additionalDirectories, cwd, mcpServers"},
		{"session/new value of the wrong type", "{\"steps\":[{\"op\":\"newSessionExpectError\",\"params\":{\n\"cwd\":5}}]}",
			":2: $.steps[0].params.cwd: does not fit session/new: json: cannot unmarshal number into Go struct field NewSessionRequest.cwd of type string"},
		{"params not an object", "{\"steps\":[{\"op\":\"newSessionExpectError\",\"params\":[]}]}", "$.steps[0].params: want an object"},
		{"session ops", `{"steps":[{"op":"setMode","modeId":"ask"},{"op":"setConfigOption","configId":"m","value":"x"},
			{"op":"setConfigOption","configId":"b","value":true},{"op":"setModel","modelId":"m"},{"op":"authenticate","methodId":"k"},
			{"op":"listSessions"},{"op":"listSessions","cwd":"{{cwd}}"},{"op":"loadSession"},{"op":"loadSession","session":2},
			{"op":"resumeSession"},{"op":"forkSession","session":1},{"op":"closeSession"},{"op":"restartAgent"},
			{"op":"request","method":"_x","params":{"a":"{{sessionId}}"}},{"op":"requestExpectError","method":"m","params":[1]},
			{"op":"notify","method":"_n"}],
			"clientAnswers":[{"method":"_x","result":{}},{"method":"elicitation/create","error":{"code":-32000,"message":"no","data":1}}]}`, "session ops"},
		{"config value", "{\"steps\":[{\"op\":\"setConfigOption\",\"configId\":\"m\",\"value\":3}]}", "$.steps[0].value: want a value id (a string) or a boolean"},
		{"raw params", "{\"steps\":[{\"op\":\"request\",\"method\":\"m\",\"params\":\"x\"}]}", "$.steps[0].params: want JSON-RPC params: an object or an array"},
		{"session zero", "{\"steps\":[{\"op\":\"loadSession\",\"session\":0}]}", "$.steps[0].session: is 0, want >= 1"},
		{"missing method", "{\"steps\":[\n{\"op\":\"notify\"}]}", `:2: $.steps[0]: op notify needs "method"`},
		{"served answer", "{\"steps\":[{\"op\":\"initialize\"}],\n\"clientAnswers\":[\n{\"method\":\"fs/read_text_file\",\"result\":{}}]}",
			":3: $.clientAnswers[0].method: the harness serves fs/read_text_file itself"},
		{"answer with both", "{\"steps\":[{\"op\":\"initialize\"}],\"clientAnswers\":[{\"method\":\"_x\",\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}]}",
			`$.clientAnswers[0]: want exactly one of "result" and "error"`},
		{"answer error key", "{\"steps\":[{\"op\":\"initialize\"}],\"clientAnswers\":[{\"method\":\"_x\",\"error\":{\"code\":1,\"msg\":\"m\"}}]}",
			`$.clientAnswers[0].error.msg: unknown key`},
		{"syntax", "{\"steps\":[\n{\"op\":\"initialize\"},,]}", ":2: $: invalid JSON: invalid character ','"},
		{"truncated", "{\"steps\":[\n{\"op\":", ":2: $: invalid JSON: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "input.json", tt.json)
			in, err := scenario.LoadInput(path)
			if tt.wantErr == "session ops" {
				if err != nil {
					t.Fatal(err)
				}
				if len(in.Steps) != 16 || in.Steps[8].Session != 2 || string(in.Steps[2].Value) != "true" || in.Steps[13].Method != "_x" ||
					len(in.ClientAnswers) != 2 || in.ClientAnswers[1].Error.Code != -32000 || string(in.ClientAnswers[1].Error.Data) != "1" {
					t.Errorf("input %+v", in)
				}
				return
			}
			if tt.wantErr == "session ops" {
				if err != nil {
					t.Fatal(err)
				}
				if len(in.Steps) != 16 || in.Steps[8].Session != 2 || string(in.Steps[2].Value) != "true" || in.Steps[13].Method != "_x" ||
					len(in.ClientAnswers) != 2 || in.ClientAnswers[1].Error.Code != -32000 || string(in.ClientAnswers[1].Error.Data) != "1" {
					t.Errorf("input %+v", in)
				}
				return
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(in.Steps) != 13 || in.Steps[11].Child != 2 || in.Steps[12].Update != "available_commands_update" || in.PermissionAnswers[0].Kind != "reject_once" || in.Steps[0].Line != 2 {
					t.Errorf("input %+v", in)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.wantErr)
			}
			want := tt.wantErr
			if strings.HasPrefix(want, ":") {
				want = path + want
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, want)
			}
		})
	}
}
