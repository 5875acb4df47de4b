package check

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/secrets"
)

// Mode selects what a check may write: the harness's Mode, one type for
// both (the harness asks only whether a run records).
type Mode = harness.Mode

// Modes.
const (
	Replay  = harness.Replay  // write nothing
	Update  = harness.Update  // write stdout.expected.jsonl only
	Refresh = harness.Refresh // write stdout and session logs (authored scenarios too)
	Record  = harness.Record  // live model; write both; recording: live scenarios only
)

// Status is the verdict on one scenario.
type Status string

// Statuses.
const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
	// Unrecorded is a scenario scaffolded but never recorded (it has its
	// manifest and client script but neither stdout.expected.jsonl nor
	// session.jsonl), outside the mode that would record it. No agent runs;
	// Outcome.Accept names the mode that records it. Count counts it as
	// failed; a caller may report it as skipped instead.
	Unrecorded Status = "unrecorded"
)

// Config says how to check scenarios.
type Config struct {
	// Settings are the agent and how each run of it goes (the mode, the
	// environment, the waits, the private roots), handed to the harness as
	// they are; with Corpus, an empty Agent is acpsnap.yml's agent.command
	// a zero Grace its agent.grace and a zero StepTimeout its agent.timeout.
	harness.Settings
	// AllRecordings makes Record mode record authored scenarios too
	// (`acpsnap new -model` records against a scripted model); false: only
	// recording: live scenarios.
	AllRecordings bool
	// Corpus is the corpus configuration (acpsnap.yml); nil: the default
	// (native, no extra rules).
	Corpus *scenario.Corpus
	// AfterRun is called after a successful agent run, before anything is
	// compared or written; its error fails the scenario. nil: nothing.
	AfterRun func() error
	// ScriptedSecrets returns the variables that point a native agent at an
	// OpenAI-compatible model server at url. With it (and always for an
	// agent that talks to its model over HTTP, whose proxy takes the
	// server as its upstream), Refresh re-renders an authored scenario that
	// keeps its model.json: it records the scenario against a scripted
	// server serving model.json (then replays it with its override, if
	// any). nil: Refresh replays the committed logs of native scenarios.
	ScriptedSecrets func(url string) map[string]string
	// DiffColor renders diffs with ANSI colour; the caller decides (a
	// terminal, NO_COLOR unset). false: plain text.
	DiffColor bool
	// DiffMaxBytes caps each printed file diff; 0: 8192.
	DiffMaxBytes int
	// DiffWidth is the width of the terminal diffs are printed on: their
	// context lines fill it. 0: not a terminal (cut at 48 bytes).
	DiffWidth int
	// Pending makes a differing scenario write <file>.new beside each
	// differing fixture (never the fixture itself) for `acpsnap review`;
	// the scenario still fails. false: nothing is written for review.
	Pending bool
	// Redact rewrites one line of stdout or of a session log, on both
	// sides, after the scrub rules (values a regexp cannot describe); it
	// must be deterministic. nil: nothing.
	Redact func(line []byte) []byte
	// CI refuses what a person must decide: Pending writes nothing, and a
	// writing mode fails instead of removing an obsolete fixture.
	CI bool
	// Folders are the corpus's folders as read already (ReadFolders: the
	// CLI reads them once for the guards and the run); nil: Check reads
	// the scenario's folder itself. A folder must not change between its
	// reading and its Check.
	Folders *Folders
}

// Outcome is the result of checking one scenario.
type Outcome struct {
	Name     string
	Status   Status
	Reason   string        // why it was skipped, or why it failed
	Err      error         // the run error behind a failure (nil for a diff)
	Diff     string        // unified diffs (-want +got) of every differing file
	Wrote    []string      // fixture files written (writing modes)
	Accept   Mode          // the mode that would accept the diff ("" when none would)
	Duration time.Duration // the agent run
	Stderr   string        // the agent's stderr tail, for failures
	Pending  []string      // pending files written beside the fixtures (Config.Pending)
	Obsolete []string      // fixture files the run no longer produced (removed when written)
	// PinDrift is a change of the model's input that many scenarios may
	// share (PinChanges groups them), "" for none: of a native agent, the
	// part of Diff (its start) that is the change of the corpus's pins,
	// PinFiles those pin files; of an HTTP agent, the first request drift's
	// changes, PinFiles their JSON paths.
	PinDrift string
	PinFiles []string
	// Notes are what a write tells beside the files it wrote: an error
	// call the agent retried, so the scenario records the retry's answer.
	Notes []string
	// Change is the change of the fixtures' lines a failed comparison
	// showed, as a key that scenarios changed the same way share (Changes
	// groups them), "" for none; ChangeFiles are the files it changed.
	Change      string
	ChangeFiles []string
	// Got is what a failed run produced, normalized and with the corpus's
	// rules applied (the side the diff calls "got"), for a report to show;
	// nil when the scenario passed or its run produced nothing to compare.
	Got *scenario.Transcript
}

// release ends a run kept with Config.Keep: its private roots stay when
// the scenario failed, whatever the failure (the reason then says where),
// and are removed otherwise.
func (o Outcome) release(res *harness.Result) Outcome {
	msg, err := res.Release(o.Status == Failed)
	if err != nil {
		return o.fail(err)
	}
	if msg != "" {
		o.Reason += "\n" + msg
	}
	return o
}

func (o Outcome) fail(err error) Outcome {
	o.Status, o.Reason, o.Err = Failed, err.Error(), err
	return o
}

// skipReason says why a scenario does not run in this mode on this platform.
func skipReason(m *scenario.Manifest, mode Mode, allRecordings bool) string {
	if m.Platform == "posix" && runtime.GOOS == "windows" {
		return "platform: posix"
	}
	if mode == Record && m.Recording != "live" && !allRecordings {
		return "recording: " + m.Recording + " (never re-recorded; use refresh)"
	}
	return ""
}

// canAccept reports whether running in mode writes a change that needs need.
func canAccept(mode, need Mode) bool {
	switch mode {
	case Update:
		return need == Update
	case Refresh, Record:
		return true
	}
	return false
}

// staleMode says which mode would rewrite the committed files that are not
// byte-identical to their normalized form: Refresh for a log, Update for
// stdout only, "" when every file is in normal form.
func staleMode(f *scenario.Fixture, norm *scenario.Transcript) Mode {
	switch logs, stdout := staleFiles(f, norm); {
	case logs:
		return Refresh
	case stdout:
		return Update
	}
	return ""
}

// secretScan knows the secrets of cfg and the values of the key-looking
// variables of the environment (cfg.Environ, else the process's).
func secretScan(cfg Config) *secrets.Set {
	environ := cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	return secrets.New(cfg.Secrets, environ)
}

// leaked refuses a live transcript that holds a secret value: it would
// reach a fixture or a printed diff. The error names the file and line
// and the variable, never the value.
func leaked(leaks *secrets.Set, dir string, got *scenario.Transcript, ws *workspace) error {
	if err := leaks.Check(filepath.Join(dir, scenario.StdoutFile), got.Stdout); err != nil {
		return err
	}
	for i, l := range got.Logs {
		if err := leaks.Check(filepath.Join(dir, scenario.LogName(i)), l); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got.Raw)) { // the cassettes
		if err := leaks.Check(filepath.Join(dir, name), got.Raw[name]); err != nil {
			return err
		}
	}
	if ws == nil || ws.tmp == "" || leaks.Len() == 0 {
		return nil
	}
	return filepath.WalkDir(ws.snap(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ws.snap(), p)
		return leaks.Check(filepath.Join(ws.expected, rel), b)
	})
}

// shown is o made fit to print: secret values redacted from everything
// that comes from the agent (reason, error, diff, stderr), and control
// characters in the reason made visible (the diff and the stderr lines of
// run errors are made visible where they are built).
func shown(leaks *secrets.Set, o Outcome) Outcome {
	o.Reason = console.Text(leaks.Redact(o.Reason))
	if o.Err != nil {
		o.Err = shownError{console.Text(leaks.Redact(o.Err.Error())), o.Err}
	}
	o.Diff = leaks.Redact(o.Diff)
	o.Stderr = leaks.Redact(o.Stderr)
	return o
}

// shownError is an error whose message was made fit to print; errors.Is
// and errors.As still see the cause.
type shownError struct {
	msg string
	err error
}

func (e shownError) Error() string { return e.msg }
func (e shownError) Unwrap() error { return e.err }
