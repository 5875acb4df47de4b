package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/safefile"

	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/proxy"
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

	// replayOnly is set for the override pass of Scripted: Refresh then
	// replays the logs just recorded instead of rendering them again.
	replayOnly bool
	// direct writes fixtures straight into the scenario folder, without a
	// replay first: Scripted's passes, which work in a private copy that
	// is replayed and published as a whole.
	direct bool
	// root is the corpus root when the scenario folder is a staged copy
	// outside it (publish); "": the folder's parent.
	root string
	// pins are the pins the scenario is checked with (withPins): an
	// overlay of the corpus's that keeps the values this check pins until
	// its write publishes them; nil: the check's own.
	pins *httplog.Pins
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

// Check runs the scenario in dir and compares (or, in writing modes, writes)
// its fixtures.
func Check(ctx context.Context, dir string, cfg Config) (o Outcome) {
	name := filepath.Base(dir)
	o = Outcome{Name: name}
	cfg.withPins(dir)
	leaks := secretScan(cfg)
	defer func() { o = shown(leaks, o) }()
	s := cfg.Folders.load(dir)
	if s.ManifestErr != nil {
		return o.fail(s.ManifestErr)
	}
	p := planFor(s, cfg)
	if p.act == actSkip {
		o.Status, o.Reason = Skipped, p.reason
		return o
	}
	if cfg.Mode.Writes() {
		// A killed write's leftovers (safefile.Sweep) go before this one.
		if _, err := safefile.Sweep(dir); err != nil {
			return o.fail(err)
		}
	}
	switch p.act {
	case actRender:
		return render(ctx, dir, cfg)
	case actUnrecorded:
		o.Status, o.Reason, o.Accept = Unrecorded, p.reason, p.accept
		return o
	case actNoLog:
		o.Status, o.Reason, o.Accept = Failed, p.reason, p.accept
		return o
	}
	return o.run(ctx, s, cfg, leaks)
}

// run runs the agent on the scenario s (replaying, or recording in Record
// mode), then compares and writes what the mode allows.
func (o Outcome) run(ctx context.Context, s *scenario.Scenario, cfg Config, leaks *secrets.Set) Outcome {
	dir, m := s.Dir, s.Manifest
	r := rulesFor(cfg.Corpus, m)
	r.redact = cfg.Redact
	hc, err := harnessConfig(s, cfg, r)
	if err != nil {
		return o.fail(err)
	}
	ws := newWorkspace(dir, cfg.TempDir)
	defer ws.remove()
	if ws != nil {
		ws.copy = cfg.Mode.Writes() || cfg.Pending || leaks.Len() > 0
		hc.OnEnd = ws.take
	}
	fx := fixtureSide(s, r, cfg.nativePins()) // while the agent runs
	defer fx.wait()
	res, err := harness.Run(ctx, hc)
	o = o.ran(ctx, s, cfg, r, ws, leaks, res, err, fx)
	return o.release(res)
}

// ran judges the run of s that returned res and err: the live side
// normalized, its pins, then the comparison.
func (o Outcome) ran(ctx context.Context, s *scenario.Scenario, cfg Config, r rules, ws *workspace, leaks *secrets.Set, res *harness.Result, err error, fx *fixture) Outcome {
	dir, m := s.Dir, s.Manifest
	if res != nil {
		o.Duration, o.Stderr = res.Duration, res.Stderr
	}
	if err == nil && cfg.AfterRun != nil {
		err = cfg.AfterRun()
	}
	if err != nil {
		o = o.fail(withDrift(err, res))
		if errors.Is(err, proxy.ErrTooManyCalls) {
			o.Reason += fmt.Sprintf("\nraise the cap with model.maxCalls in %s (default %d) if the agent needs more calls", scenario.CorpusFile, proxy.DefaultMaxCalls)
		}
		if res != nil && res.RequestDrift {
			o.Accept = rerecord(dir, m) // a recorded answer to a different question is no fixture
			o.PinFiles, o.PinDrift = driftChange(res.Drifts)
		}
		return o
	}
	broken := protocolBreaks(res, cfg.Corpus) // before normalizing lets the raw stdout go
	got, err := normalizeLive(res)
	if err == nil {
		err = leaked(leaks, dir, got, ws)
	}
	if err == nil {
		err = leakedPins(leaks, cfg.pins)
	}
	if err == nil && broken != nil {
		broken.show(got)
		err = broken
	}
	if err != nil {
		return o.fail(err)
	}
	r.apply(got)
	o = o.compare(ctx, s, got, cfg, fx, ws)
	if o.Status == Failed {
		o.Got = got
	}
	return o.noted(res, got, cfg.pins)
}

// harnessConfig is how the harness runs the scenario in dir under cfg:
// the manifest m, the mode, and what the corpus says about the agent.
func harnessConfig(s *scenario.Scenario, cfg Config, r rules) (harness.Config, error) {
	dir, m := s.Dir, s.Manifest
	hc := harness.Config{Settings: cfg.Settings, Dir: dir, Scenario: s}
	if cfg.Corpus != nil {
		if err := applyCorpus(&hc, cfg, m, dir, r); err != nil {
			return hc, err
		}
	}
	return hc, nil
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

// compare diffs the live transcript against the fixture side fx and writes
// what the mode allows. A scenario with no fixture yet (scaffolded by `new`)
// compares against empty files in Record mode.
func (o Outcome) compare(ctx context.Context, s *scenario.Scenario, got *scenario.Transcript, cfg Config, fx *fixture, ws *workspace) Outcome {
	dir, mode := s.Dir, cfg.Mode
	np := cfg.nativePins()
	want, stale, raw := &scenario.Transcript{}, Mode(""), &scenario.Transcript{}
	if f := s.Fixture; f != nil {
		var err error
		raw = &scenario.Transcript{Stdout: f.Stdout, Logs: f.Logs}
		if want, stale, err = fx.wait(); err != nil {
			return o.fail(err)
		}
	} else if mode != Record {
		return o.fail(s.FixtureErr)
	} else {
		if np != nil {
			np.live(got, nil)
		}
		return o.write(ctx, dir, got, cfg, ws) // nothing to compare with: no diff at all
	}
	if np != nil {
		np.live(got, want)
	}
	if np != nil && len(np.drift) > 0 && mode != Record {
		pinFiles, d := np.driftDiff(cfg.diffConfig())
		o.Status, o.Diff, o.Accept = Failed, d, rerecord(dir, s.Manifest)
		o.PinFiles, o.PinDrift = pinFiles, d
		o.Reason = "the agent's request differs from the pin its recording names (" + strings.Join(pinFiles, ", ") + "): a changed model input, which only " + string(o.Accept) + " accepts"
		np.mask(got) // the change of the pins is shown once, above
		if files := diffTranscripts(dir, want, got, cfg.diffConfig()); len(files) > 0 {
			o.Diff += joinDiffs(files)
		}
		return o
	}
	files := diffTranscripts(dir, want, got, cfg.diffConfig())
	wsDiff, err := o.compareWorkspace(ws, want, got, cfg)
	if err != nil {
		return o.fail(err)
	}
	o.Diff = joinDiffs(files) + wsDiff
	if wsDiff == "" {
		o.Change, o.ChangeFiles = lineChange(want, got, files)
	}
	switch {
	case wsDiff != "" || len(files) > 0 && files[0].log:
		o.Accept = Refresh
		if where := inputDrift(want, got); where != "" {
			// The replay answered a question the recording never asked: a
			// recorded answer to a different question is no fixture.
			o.Accept = rerecord(dir, s.Manifest)
			if mode == Refresh {
				o.Status, o.Reason = Failed, "the model's input changed ("+where+"); only record (or re-authoring the model) accepts that, refresh does not"
				return o
			}
		}
	case len(files) > 0:
		o.Accept = Update
	case mode.Writes() && stale != "":
		// Equal once normalized, but the committed bytes are not in normal
		// form: a writing mode rewrites them, if it may write those files.
		if !canAccept(mode, stale) {
			o.Status, o.Reason, o.Accept = Failed, "a session log is not in normal form", stale
			return o
		}
		if cfg.Pending {
			o.Status, o.Reason, o.Accept = Failed, "a fixture is not in normal form", stale
			return o.pending(dir, diffTranscripts(dir, raw, got, cfg.diffConfig()), ws, false, cfg)
		}
		return o.write(ctx, dir, got, cfg, ws)
	default:
		o.Status = Passed
		return o.clearPending(dir, cfg)
	}
	if cfg.Pending || !canAccept(mode, o.Accept) {
		o.Status, o.Reason = Failed, "output differs from the fixture"
		return o.pending(dir, files, ws, wsDiff != "", cfg)
	}
	if cfg.CI && len(o.Obsolete) > 0 {
		return o.fail(fmt.Errorf("check: obsolete fixtures %s and CI is set: refusing to remove them", strings.Join(o.Obsolete, ", ")))
	}
	return o.write(ctx, dir, got, cfg, ws)
}

// write accepts the live transcript: stdout only in Update mode, stdout and
// the logs otherwise. A run that produced no session log cannot become a
// scenario (session.jsonl is required), so it writes nothing. What it
// writes is replayed once before it is published (writeFixture), except in
// the private copy a scripted recording works in (cfg.direct), which is
// replayed as a whole.
func (o Outcome) write(ctx context.Context, dir string, got *scenario.Transcript, cfg Config, ws *workspace) Outcome {
	mode := cfg.Mode
	files := map[string][]byte{scenario.StdoutFile: got.Stdout}
	if mode != Update {
		if len(got.Logs) == 0 {
			return o.fail(fmt.Errorf("the agent wrote no session log under ACPSNAP_SESSIONS_DIR; a scenario needs one (docs/agents.md), so nothing was written"))
		}
		for i, l := range got.Logs {
			files[scenario.LogName(i)] = l
		}
		for name, b := range got.Raw {
			files[name] = b
		}
	}
	if mode == Update {
		ws = nil
	}
	var verify func(string) error
	if !cfg.direct {
		verify = verifier(ctx, dir, cfg)
	}
	wrote, err := writeFixture(dir, files, ws, mode != Update, verify)
	if err != nil {
		return o.refused(err)
	}
	if ws != nil {
		wrote = append(wrote, scenario.ExpectedDir+"/")
	}
	o.Status, o.Wrote, o.Accept = Passed, wrote, ""
	return o
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
