package scenario_test

import (
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

func TestLoadCorpus(t *testing.T) {
	const good = "version: 1\nagent:\n  command: [codex-acp, -c, 'base_url=\"{{model.url}}\"']\n  env: { CODEX_HOME: \"{{home}}/.codex\" }\n  shutdown: term\nmodel:\n  dialect: openai-responses\n  ignore: [/prompt_cache_key, \"header:session-id\"]\nscrub:\n  - { pattern: \"date \\\\d+\", replace: \"date {{date}}\" }\nfloating: [available_commands_update]\nsettle: 300ms\n"
	tests := []struct {
		name, yaml, wantErr string
	}{
		{"full", good, ""},
		{"unknown key", good + "agnet: {}\n", ":13: field agnet not found"},
		{"unknown nested key", strings.Replace(good, "shutdown:", "shutdwn:", 1), ":5: field shutdwn not found"},
		{"bad dialect", strings.Replace(good, "openai-responses", "openai", 1), `:7: dialect is "openai", want native`},
		{"bad shutdown", strings.Replace(good, "term", "kill", 1), `:5: shutdown is "kill", want eof or term`},
		{"bad ignore", strings.Replace(good, "/prompt_cache_key", "prompt_cache_key", 1), `:8: ignore "prompt_cache_key": want a JSON pointer`},
		{"bad scrub", strings.Replace(good, `date \\d+`, `date (`, 1), ":10: scrub: pattern: error parsing regexp"},
		{"floating twice", strings.Replace(good, "[available_commands_update]", "[a, a]", 1), `:11: floating: "a" is empty or listed twice`},
		{"ignore on native", "version: 1\nmodel:\n  ignore: [/x]\n", ":3: upstream and ignore need an HTTP dialect"},
		{"harness env", strings.Replace(good, "CODEX_HOME", "HOME", 1), ":4: agent.env: HOME is set by the harness"},
		{"path extended", strings.Replace(good, `CODEX_HOME: "{{home}}/.codex"`, `PATH: "{{home}}/bin:{{path}}"`, 1), ""},
		{"path replaced", strings.Replace(good, `CODEX_HOME: "{{home}}/.codex"`, `PATH: "{{home}}/bin"`, 1), ":4: agent.env: PATH is set by the harness"},
		{"escaping home", strings.Replace(good, "shutdown: term", "shutdown: term\n  home: ../x", 1), `:6: home "../x" must be a folder inside the corpus`},
		{"grace", strings.Replace(good, "shutdown: term", "shutdown: term\n  grace: 10s", 1), ""},
		{"negative grace", strings.Replace(good, "shutdown: term", "shutdown: term\n  grace: -1s", 1), ":6: grace must not be negative"},
		{"timeout", strings.Replace(good, "shutdown: term", "shutdown: term\n  timeout: 1m", 1), ""},
		{"negative timeout", strings.Replace(good, "shutdown: term", "shutdown: term\n  timeout: -1s", 1), ":6: timeout must not be negative"},
		{"timeout not a duration", strings.Replace(good, "shutdown: term", "shutdown: term\n  timeout: soon", 1), ":6:"},
		{"gemini", strings.Replace(good, "openai-responses", "gemini-generate-content", 1), ""},
		{"grace and ready", strings.Replace(good, "shutdown: term", "shutdown: term\n  grace: 5s", 1) + "ready: { update: available_commands_update }\n", ""},
		{"ready unknown key", good + "ready: { updat: x }\n", ":13: field updat not found"},
		{"expected hosts", good + "probe: { expectHosts: [raw.githubusercontent.com, 192.0.2.1] }\n", ""},
		{"expected host twice", good + "probe:\n  expectHosts: [a.example, a.example]\n", `:14: host "a.example" is listed twice`},
		{"acknowledged", good + "conformance:\n  acknowledge:\n    - { rule: cancelled-stop-reason, reason: the SDK ends quietly on abort }\n", ""},
		{"acknowledged unknown rule", good + "conformance:\n  acknowledge:\n    - { rule: cancel, reason: x }\n", `:15: rule "cancel": want one of jsonrpc, schema,`},
		{"acknowledged without a reason", good + "conformance:\n  acknowledge:\n    - { rule: schema }\n", `:15: rule schema: a reason is required`},
		{"acknowledged twice", good + "conformance:\n  acknowledge:\n    - { rule: schema, reason: a }\n    - { rule: schema, reason: b }\n", `:16: rule schema is acknowledged twice`},
		{"blank expected host", good + "probe:\n  expectHosts: [\"\"]\n", `:14: host "": want a host name`},
		{"expected host with a port", good + "probe:\n  expectHosts: [\"a.example:443\"]\n", `:14: host "a.example:443": want a host name or an IP address`},
		{"max calls", strings.Replace(good, "  ignore:", "  maxCalls: 5000\n  ignore:", 1), ""},
		{"negative max calls", strings.Replace(good, "  ignore:", "  maxCalls: -1\n  ignore:", 1), ":8: maxCalls must not be negative"},
		{"max calls on native", "version: 1\nmodel:\n  maxCalls: 10\n", ":3: maxCalls needs an HTTP dialect"},
		{"wrong version", strings.Replace(good, "version: 1", "version: 2", 1), ":1: version is 2, want 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "acpsnap.yml", tt.yaml)
			c, err := scenario.LoadCorpus(dir)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.Native() || c.Agent.Shutdown != "term" || c.Settle != 300*time.Millisecond || c.Scrub[0].Regexp() == nil || c.Path != path {
					t.Errorf("corpus %+v", c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), path+tt.wantErr) {
				t.Errorf("error %v, want it to contain %q", err, path+tt.wantErr)
			}
		})
	}
}

func TestLoadCorpusDefault(t *testing.T) {
	c, err := scenario.LoadCorpus(t.TempDir())
	if err != nil || !c.Native() || c.Agent.Command != nil || c.Path != "" {
		t.Fatalf("LoadCorpus without a file = %+v, %v; want the native default", c, err)
	}
}
