// Package launch starts the reference agent as a process: it reads the
// agent's environment (the ACPSNAP_* contract of package agentenv, and
// DEEPSEEK_* for the live model), picks the model provider, serves ACP on
// the given stdio and, in replay, writes the replay report at exit. It is
// what `acpsnap agent` runs, and what a test binary runs when it serves as
// the reference agent.
//
// The mode comes from ACPSNAP_MODE: replay (llmreplay from the fixtures;
// never reads .env, never dials out), record (DeepSeek from DEEPSEEK_*), or
// unset: a standalone agent for an editor, DeepSeek configured from the
// environment or ./.env, logs in ~/.acpsnap/sessions.
//
// When ACPSNAP_TOOL_CASSETTE is set, the agent's tools run through the tool
// cassette (docs/cassettes.md): a recorder at that path in record mode, a
// player of it otherwise, selecting ACPSNAP_TOOL_INCLUDE. It is closed
// after the agent's last session; its error (a mismatch, an extra or
// unconsumed call, an unfinished recording) is Main's, so the process
// exits non-zero with the reason on stderr.
package launch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/joho/godotenv"

	"github.com/acpsnap/acpsnap/agent"
	"github.com/acpsnap/acpsnap/agent/internal/deepseek"
	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/llmreplay"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// The live model's variables.
const (
	KeyVar     = "DEEPSEEK_API_KEY"
	BaseURLVar = "DEEPSEEK_BASE_URL"
	ModelVar   = "DEEPSEEK_MODEL"
)

// LiveVars are the variables a record run passes to the agent.
var LiveVars = []string{KeyVar, BaseURLVar, ModelVar}

// defaultSessionsPath is where a standalone agent logs, under $HOME.
const defaultSessionsPath = ".acpsnap/sessions"

// liveRetryDelay is how long the agent waits before retrying a rate-limited
// or unavailable live model call.
const liveRetryDelay = 2 * time.Second

// Process is what the agent process is given.
type Process struct {
	Getenv func(string) string // required (os.Getenv)
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer // diagnostics; nil: io.Discard
}

// UsageError is a configuration error of the agent's environment (an
// unknown mode, a missing fixture): the process should exit 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Command serves the reference agent on this process's stdio and
// environment, and returns the exit code: a command a test binary serves
// (acpsnaptest.Main), so that a corpus needs no agent built beforehand.
func Command() int {
	if err := Main(context.Background(), Process{Getenv: os.Getenv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}); err != nil {
		fmt.Fprintln(os.Stderr, "acpsnap agent:", err)
		return 1
	}
	return 0
}

// Main serves the reference agent until stdin ends or ctx is cancelled.
func Main(ctx context.Context, p Process) error {
	contract, err := agentenv.Load(p.Getenv)
	if err != nil {
		return &UsageError{fmt.Errorf("agent: %w", err)}
	}
	cfg := agent.Config{Permission: contract.Permission, Stderr: p.Stderr, Paths: runPaths(contract, p.Getenv)}
	if cfg.SessionsDir, err = sessionsDir(contract); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ld, err := provider(p.Getenv, contract, &cfg, cancel)
	if err != nil {
		return err
	}
	if cfg.Subagents, err = subagents(contract); err != nil {
		return cmp.Or(ld.wait(contract), err) // the fixture's problem first, as when it loaded first
	}
	if cfg.Tools, err = toolCassette(contract, cfg.Paths); err != nil {
		return cmp.Or(ld.wait(contract), err)
	}
	err = closeTools(cfg.Tools, agent.Serve(ctx, cfg, p.Stdin, p.Stdout))
	if lerr := ld.wait(contract); lerr != nil {
		return lerr
	}
	if cfg.Subagents != nil {
		err = errors.Join(err, cfg.Subagents.Close()) // unconsumed or unpublished: the run fails
	}
	if ld != nil {
		if werr := agentenv.WriteReport(cfg.SessionsDir, ld.player.Report()); werr != nil && err == nil {
			err = fmt.Errorf("agent: write replay report: %w", werr)
		}
	}
	return err
}

// sessionsDir is ACPSNAP_SESSIONS_DIR, or ~/.acpsnap/sessions.
func sessionsDir(c agentenv.Agent) (string, error) {
	if c.SessionsDir != "" {
		return c.SessionsDir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("agent: no %s and no home directory: %w", agentenv.SessionsDirVar, err)
	}
	return filepath.Join(home, defaultSessionsPath), nil
}

// provider sets cfg's model provider from the mode; in replay it also
// returns the loading player, whose consumption report is written at exit.
//
// The fixtures are read and derived while the agent already serves: the
// handshake needs no model, so the load overlaps the client's first round
// trips, and the first model call waits for it. A fixture that does not
// load calls stop (ending Serve) and Main returns the same UsageError as
// if it had been loaded first.
func provider(getenv func(string) string, c agentenv.Agent, cfg *agent.Config, stop func()) (*loading, error) {
	if c.Mode == agentenv.Replay {
		ld := &loading{done: make(chan struct{})}
		go func() {
			defer close(ld.done)
			ld.player, ld.err = llmreplay.Load(llmreplay.Config{Primary: c.Fixture, Children: c.FixtureChildren, Override: c.Override})
			if ld.err != nil {
				stop()
			}
		}()
		cfg.Model = cmp.Or(getenv(ModelVar), deepseek.DefaultModel)
		cfg.Provider = ld
		return ld, nil
	}
	dotenv := ""
	if c.Mode == "" {
		dotenv = ".env"
	}
	vars, err := varsFrom(getenv, dotenv)
	if err != nil {
		return nil, err
	}
	cfg.Model, cfg.RetryDelay = cmp.Or(vars[ModelVar], deepseek.DefaultModel), liveRetryDelay
	cfg.Provider = deepseek.New(deepseek.Config{APIKey: vars[KeyVar], BaseURL: vars[BaseURLVar], Model: cfg.Model})
	return nil, nil
}

// loading is the replay provider while its player loads.
type loading struct {
	done   chan struct{} // closed once player or err is set
	player *llmreplay.Player
	err    error
}

// wait waits for the load (nil: no replay) and returns its failure as the
// agent's UsageError.
func (l *loading) wait(c agentenv.Agent) error {
	if l == nil {
		return nil
	}
	<-l.done
	if l.err != nil {
		return &UsageError{fmt.Errorf("agent: load the replay script (%s=%q): %w", agentenv.FixtureVar, c.Fixture, l.err)}
	}
	return nil
}

// Stream waits for the player, then serves from it.
func (l *loading) Stream(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
	select {
	case <-l.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if l.err != nil {
		return &model.ProviderError{Code: model.CodeInternal, Message: "the replay script did not load"}
	}
	return agent.Replay(l.player).Stream(ctx, req, emit)
}

// Open waits for the player, then binds a new top-level session to its
// next top-level fixture (agent.Opener).
func (l *loading) Open(sessionID string) {
	<-l.done
	if l.err == nil {
		l.player.Open(sessionID)
	}
}

// Resume waits for the player, then positions it after a reopened
// session's model calls (agent.Resumer).
func (l *loading) Resume(sessionID string, log *sessionlog.Log) error {
	<-l.done
	if l.err != nil {
		return errors.New("the replay script did not load")
	}
	return l.player.Resume(sessionID, log)
}

// varsFrom reads DEEPSEEK_* with getenv, falling back to the dotenv file at
// path ("" or a missing file: none) through godotenv, without modifying the
// process environment.
func varsFrom(getenv func(string) string, path string) (map[string]string, error) {
	vals := map[string]string{}
	if path != "" {
		dot, err := godotenv.Read(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, &UsageError{fmt.Errorf("read %s: %w", path, err)}
		}
		for _, k := range LiveVars {
			vals[k] = dot[k]
		}
	}
	for _, k := range LiveVars {
		if v := getenv(k); v != "" {
			vals[k] = v
		}
	}
	return vals, nil
}

// LiveSecrets returns the DEEPSEEK_* variables a record run passes to the
// agent, from getenv or else the dotenv file at dotenvPath, and fails when
// DEEPSEEK_API_KEY is in neither.
func LiveSecrets(getenv func(string) string, dotenvPath string) (map[string]string, error) {
	vals, err := varsFrom(getenv, dotenvPath)
	if err != nil {
		return nil, err
	}
	if vals[KeyVar] == "" {
		return nil, &UsageError{fmt.Errorf("record needs %s (in the environment or %s); %s may point at any OpenAI-compatible server", KeyVar, dotenvPath, BaseURLVar)}
	}
	for k, v := range vals {
		if v == "" {
			delete(vals, k)
		}
	}
	return vals, nil
}

// ScriptedEnv returns the variables that point the reference agent at an
// OpenAI-compatible scripted model server at url (replay.Server): how
// `acpsnap new -model` and refresh render authored scenarios.
func ScriptedEnv(url string) map[string]string {
	return map[string]string{KeyVar: "scripted-model-no-key", BaseURLVar: url, ModelVar: deepseek.DefaultModel}
}
