package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCommand(t *testing.T) {
	type testCase struct {
		name    string
		in      string
		want    []string
		wantErr string // "" means success; else a substring of the error
	}
	tests := []testCase{
		{"one word", "agent", []string{"agent"}, ""},
		{"blanks of every kind", " node\t./dist/agent.js \n--stdio  ", []string{"node", "./dist/agent.js", "--stdio"}, ""},
		{"single quotes keep blanks", "sh 'my agent.sh' x", []string{"sh", "my agent.sh", "x"}, ""},
		{"double quotes keep blanks", `sh "my agent.sh"`, []string{"sh", "my agent.sh"}, ""},
		{"quotes join a word", `a'b c'"d e"f`, []string{"ab cd ef"}, ""},
		{"empty quotes are a word", `x '' ""`, []string{"x", "", ""}, ""},
		{"backslash escapes a blank", `my\ agent --flag`, []string{"my agent", "--flag"}, ""},
		{"backslash escapes a quote", `it\'s "say \"hi\""`, []string{"it's", `say "hi"`}, ""},
		{"backslash is literal in single quotes", `'C:\dir\'`, []string{`C:\dir\`}, ""},
		{"escaped backslash", `a\\b`, []string{`a\b`}, ""},
		{"the other quote is literal", `"it's" 'say "x"'`, []string{"it's", `say "x"`}, ""},
		{"no expansion", `echo $HOME ~ * "$(id)"`, []string{"echo", "$HOME", "~", "*", "$(id)"}, ""},
		{"unicode", "agent ‘é’", []string{"agent", "‘é’"}, ""},
		{"backslash is literal in double quotes before other runes", `"C:\dir" "a\$b" "q\"" "s\\"`, []string{`C:\dir`, "a$b", `q"`, `s\`}, ""},
		{"backslash-newline joins lines", "agent \\\n--stdio", []string{"agent", "--stdio"}, ""},
		{"backslash-newline inside a word", "ag\\\nent", []string{"agent"}, ""},
		{"backslash-newline in double quotes", "\"ag\\\nent\"", []string{"agent"}, ""},
		{"unterminated single quote", "sh 'agent", nil, "unterminated quote or escape"},
		{"unterminated double quote", `sh "agent`, nil, "unterminated quote or escape"},
		{"trailing backslash", `agent\`, nil, "unterminated quote or escape"},
		{"empty", "", nil, "empty command"},
		{"blank", " \t\n", nil, "empty command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := splitCommand(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("splitCommand(%q) = %q, %v; want an error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("splitCommand(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("splitCommand(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestAgentFlagError: a bad -agent is a usage error naming the flag.
func TestAgentFlagError(t *testing.T) {
	_, err := (&env{}).agentCommand(`node "dist/agent.js`, nil)
	if _, ok := err.(*usageError); !ok || !strings.Contains(err.Error(), "-agent: unterminated") {
		t.Errorf("agentCommand with an unterminated quote = %v (%T), want a usage error naming -agent", err, err)
	}
	words, err := (&env{}).agentCommand(`node 'my dir/agent.js' --stdio`, nil)
	if diff := cmp.Diff([]string{"node", "my dir/agent.js", "--stdio"}, words); err != nil || diff != "" {
		t.Errorf("agentCommand: %v (-want +got):\n%s", err, diff)
	}
}

func TestShellQuote(t *testing.T) {
	type testCase struct{ in, want string }
	tests := []testCase{
		{"snapshots", "snapshots"},
		{"my-corpus/v1.2_x", "my-corpus/v1.2_x"},
		{"", "''"},
		{"my corpus", "'my corpus'"},
		{"^text-turn$", "'^text-turn$'"},
		{"it's", `'it'\''s'`},
		{`a"b\c`, `'a"b\c'`},
		{"$HOME", "'$HOME'"},
		{"né", "'né'"},
		{"a\nb", "'a\nb'"},
	}
	for _, tc := range tests {
		got := shellQuote(tc.in)
		if got != tc.want {
			t.Errorf("shellQuote(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// What shellQuote quotes, splitCommand reads back as one word.
		words, err := splitCommand("x " + got)
		if diff := cmp.Diff([]string{"x", tc.in}, words); err != nil || diff != "" {
			t.Errorf("splitCommand(shellQuote(%q)): %v (-want +got):\n%s", tc.in, err, diff)
		}
	}
}
