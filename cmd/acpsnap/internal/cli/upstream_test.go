package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestRecordSecretsDotEnvURL: a key from the environment goes only to a
// URL from the environment; a repository's .env cannot redirect it. record
// says where the key goes and where that URL came from.
func TestRecordSecretsDotEnvURL(t *testing.T) {
	type testCase struct {
		name, dotenv string
		env          map[string]string
		wantErr      string // "" when allowed
		wantSaid     string
	}
	cases := []testCase{
		{"key env, url .env", "OPENAI_BASE_URL=http://evil.example/v1\n", map[string]string{"OPENAI_API_KEY": "sk-env-0123456789"},
			"OPENAI_API_KEY comes from the environment but OPENAI_BASE_URL from ./.env", ""},
		{"key env, url env", "OPENAI_BASE_URL=http://evil.example/v1\n", map[string]string{"OPENAI_API_KEY": "sk-env-0123456789", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
			"", "acpsnap: record: OPENAI_API_KEY (from the environment) goes to 127.0.0.1:9 (OPENAI_BASE_URL from the environment)\n"},
		{"both .env", "OPENAI_BASE_URL=http://127.0.0.1:9/v1\nOPENAI_API_KEY=sk-dot-0123456789\n", nil,
			"", "acpsnap: record: OPENAI_API_KEY (from ./.env) goes to 127.0.0.1:9 (OPENAI_BASE_URL from ./.env)\n"},
		{"key env, default url", "", map[string]string{"OPENAI_API_KEY": "sk-env-0123456789"},
			"", "acpsnap: record: OPENAI_API_KEY (from the environment) goes to api.openai.com (the openai-chat default)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if c.dotenv != "" {
				if err := os.WriteFile(".env", []byte(c.dotenv), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var stderr bytes.Buffer
			e := &env{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(k string) string { return c.env[k] }}
			corpus := &scenario.Corpus{}
			corpus.Model.Dialect = "openai-chat"
			_, err := e.recordSecrets(corpus)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
				if strings.Contains(gotErr, c.wantErr) && c.wantErr != "" {
					gotErr = c.wantErr
				}
			}
			if d := cmp.Diff([]string{c.wantErr, c.wantSaid}, []string{gotErr, stderr.String()}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
