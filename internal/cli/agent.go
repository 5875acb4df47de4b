package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/joho/godotenv"

	"github.com/acpsnap/acpsnap/agent"
	"github.com/acpsnap/acpsnap/agent/deepseek"
	"github.com/acpsnap/acpsnap/llmreplay"
)

// The agent environment contract (SPEC §7).
const (
	envMode             = "ACPSNAP_MODE"
	envSessionsDir      = "ACPSNAP_SESSIONS_DIR"
	envFixture          = "ACPSNAP_FIXTURE"
	envFixtureChildren  = "ACPSNAP_FIXTURE_CHILDREN"
	envOverride         = "ACPSNAP_OVERRIDE"
	envPermission       = "ACPSNAP_PERMISSION"
	envDeepSeekKey      = "DEEPSEEK_API_KEY"
	envDeepSeekBaseURL  = "DEEPSEEK_BASE_URL"
	envDeepSeekModel    = "DEEPSEEK_MODEL"
	defaultSessionsPath = ".acpsnap/sessions"
)

// liveRetryDelay is how long the agent waits before retrying a rate-limited
// or unavailable live model call.
const liveRetryDelay = 2 * time.Second

var deepseekVars = []string{envDeepSeekKey, envDeepSeekBaseURL, envDeepSeekModel}

// agent runs the reference agent on stdin/stdout. ACPSNAP_MODE selects the
// provider: replay (llmreplay from the fixtures; never reads .env, never
// dials out), record (DeepSeek from DEEPSEEK_*), or unset: a standalone
// agent for an editor, DeepSeek configured from the environment or ./.env.
// In replay it writes replay-report.json into the sessions folder at exit.
func (e *env) agent(args []string) error {
	fset := e.flags("agent")
	if err := parse(fset, args); err != nil {
		return err
	}
	cfg := agent.Config{Permission: e.getenv(envPermission), Stderr: e.stderr}
	sessions, err := e.sessionsDir()
	if err != nil {
		return err
	}
	cfg.SessionsDir = sessions
	player, err := e.provider(&cfg)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	err = agent.Serve(ctx, cfg, e.stdin, e.stdout)
	if player != nil {
		if werr := llmreplay.WriteReport(cfg.SessionsDir, player.Report()); werr != nil && err == nil {
			err = fmt.Errorf("agent: write replay report: %w", werr)
		}
	}
	return err
}

// sessionsDir is ACPSNAP_SESSIONS_DIR, or ~/.acpsnap/sessions.
func (e *env) sessionsDir() (string, error) {
	if dir := e.getenv(envSessionsDir); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("agent: no %s and no home directory: %w", envSessionsDir, err)
	}
	return filepath.Join(home, defaultSessionsPath), nil
}

// provider sets cfg's model provider from ACPSNAP_MODE; in replay it also
// returns the player whose consumption report is written at exit.
func (e *env) provider(cfg *agent.Config) (*llmreplay.Player, error) {
	switch mode := e.getenv(envMode); mode {
	case "replay":
		p, err := llmreplay.Load(llmreplay.Config{
			Primary:  e.getenv(envFixture),
			Children: filepath.SplitList(e.getenv(envFixtureChildren)),
			Override: e.getenv(envOverride),
		})
		if err != nil {
			return nil, usagef("agent: load the replay script (%s=%q): %v", envFixture, e.getenv(envFixture), err)
		}
		cfg.Provider = agent.Replay(p)
		return p, nil
	case "record", "":
		vars, err := e.deepseekEnv(mode == "")
		if err != nil {
			return nil, err
		}
		cfg.Model, cfg.RetryDelay = vars[envDeepSeekModel], liveRetryDelay
		cfg.Provider = deepseek.New(deepseek.Config{APIKey: vars[envDeepSeekKey], BaseURL: vars[envDeepSeekBaseURL], Model: cfg.Model})
		return nil, nil
	default:
		return nil, usagef("agent: %s=%q: want replay, record or unset", envMode, mode)
	}
}

// deepseekEnv returns the DEEPSEEK_* variables from the environment, and,
// with dotenv, from ./.env for those the environment lacks.
func (e *env) deepseekEnv(dotenv bool) (map[string]string, error) {
	path := ""
	if dotenv {
		path = ".env"
	}
	return deepseekVarsFrom(e.getenv, path)
}

// deepseekVarsFrom reads DEEPSEEK_* with getenv, falling back to the dotenv
// file at path ("" or a missing file: none) through godotenv, without
// modifying the process environment.
func deepseekVarsFrom(getenv func(string) string, path string) (map[string]string, error) {
	vals := map[string]string{}
	if path != "" {
		dot, err := godotenv.Read(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("read %s: %v", path, err)
		}
		for _, k := range deepseekVars {
			vals[k] = dot[k]
		}
	}
	for _, k := range deepseekVars {
		if v := getenv(k); v != "" {
			vals[k] = v
		}
	}
	return vals, nil
}

// liveSecrets are the variables a record run passes to the agent.
func (e *env) liveSecrets() (map[string]string, error) {
	return LiveSecrets(e.getenv, ".env")
}

// LiveSecrets returns the DEEPSEEK_* variables a record run passes to the
// agent, from getenv or else the dotenv file at dotenvPath, and fails when
// DEEPSEEK_API_KEY is in neither. The test suite's -record flag uses it too.
func LiveSecrets(getenv func(string) string, dotenvPath string) (map[string]string, error) {
	vals, err := deepseekVarsFrom(getenv, dotenvPath)
	if err != nil {
		return nil, err
	}
	if vals[envDeepSeekKey] == "" {
		return nil, usagef("record needs %s (in the environment or %s); DEEPSEEK_BASE_URL may point at any OpenAI-compatible server", envDeepSeekKey, dotenvPath)
	}
	for k, v := range vals {
		if v == "" {
			delete(vals, k)
		}
	}
	return vals, nil
}
