package check

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/proxy"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/secrets"
)

// checker is one check of one scenario and the state it builds up: what
// it was asked (Config, and the pass it belongs to), the corpus's pins it
// works with, the scenario as read, the rules and secrets that apply to
// it, and, once the agent ran, the workspace it left and the fixture side
// it is compared with. Check makes one per scenario; the replay before a
// write, the passes of a scripted recording, a capture and a probe make
// theirs.
type checker struct {
	cfg  Config
	pass pass
	// pins are the pins the scenario is checked with: an overlay of the
	// corpus's that keeps what this check pins until its write publishes
	// them.
	pins *httplog.Pins

	dir   string
	s     *scenario.Scenario
	rules rules
	leaks *secrets.Set
	ws    *workspace // the copy of the run's workspace; nil: the scenario has no expected one
	fx    *fixture   // the fixture side, made while the agent runs
	wire  *wireCheck // the wire's check, from the last step's end; nil: none started
}

// pass says how a check that is part of a larger write differs from a
// check of its own. The zero value is a check of its own.
type pass struct {
	// replayOnly is the override pass of Scripted: Refresh replays the
	// logs just recorded instead of rendering them again.
	replayOnly bool
	// direct writes fixtures straight into the scenario folder, without a
	// replay first: the folder is a private copy that is replayed and
	// published as a whole (Scripted's passes, a capture).
	direct bool
	// root is the corpus root when the scenario folder is a staged copy
	// outside it; "": the folder's parent.
	root string
	// home is the scenario folder a staged copy stands for: where its
	// pending files go, and the name its diffs show; "": the folder itself.
	home string
}

// home is the scenario folder the user knows: the checked folder, or the
// one its staged copy stands for.
func (c *checker) home() string {
	if c.pass.home != "" {
		return c.pass.home
	}
	return c.dir
}

// newChecker is the check of the scenario folder dir under cfg, as part
// of p, with pins (nil: an overlay of the corpus's own).
func newChecker(dir string, cfg Config, p pass, pins *httplog.Pins) *checker {
	c := &checker{cfg: cfg, pass: p, pins: pins, dir: dir}
	if c.pins == nil {
		c.pins = cfg.Folders.pinStore(c.root()).Overlay()
	}
	return c
}

// Check runs the scenario in dir and compares (or, in writing modes, writes)
// its fixtures.
func Check(ctx context.Context, dir string, cfg Config) Outcome {
	return newChecker(dir, cfg, pass{}, nil).check(ctx)
}

// root is the corpus root of the scenario: the folder's parent, or the
// root of the scenario a staged copy stands for.
func (c *checker) root() string {
	if c.pass.root != "" {
		return c.pass.root
	}
	return filepath.Dir(c.dir)
}

// native is the pinning of a native agent's logs; nil for an agent that
// talks to its model over HTTP, whose logs the harness composes pinned.
func (c *checker) native() *nativePins {
	if c.cfg.Corpus == nil || c.cfg.Corpus.Native() {
		return &nativePins{pins: c.pins}
	}
	return nil
}

// check decides what to do with the scenario (plan) and does it.
func (c *checker) check(ctx context.Context) (o Outcome) {
	o = Outcome{Name: filepath.Base(c.dir)}
	c.leaks = secretScan(c.cfg)
	defer func() { o = shown(c.leaks, o) }()
	c.s = c.cfg.Folders.load(c.dir)
	if c.s.ManifestErr != nil {
		return o.fail(c.s.ManifestErr)
	}
	p := c.plan()
	if p.act == actSkip {
		o.Status, o.Reason = Skipped, p.reason
		return o
	}
	if c.cfg.Mode.Writes() {
		// A killed write's leftovers (safefile.Sweep) go before this one.
		if _, err := safefile.Sweep(c.dir); err != nil {
			return o.fail(err)
		}
	}
	switch p.act {
	case actRender:
		return c.render(ctx)
	case actUnrecorded:
		o.Status, o.Reason, o.Accept = Unrecorded, p.reason, p.accept
		return o
	case actNoLog:
		o.Status, o.Reason, o.Accept = Failed, p.reason, p.accept
		return o
	}
	return c.run(ctx, o)
}

// run runs the agent on the scenario (replaying, or recording in Record
// mode), then judges the run.
func (c *checker) run(ctx context.Context, o Outcome) Outcome {
	c.rules = rulesFor(c.cfg.Corpus, c.s.Manifest)
	c.rules.redact = c.cfg.Redact
	hc, err := c.harnessConfig()
	if err != nil {
		return o.fail(err)
	}
	c.ws = newWorkspace(c.dir, c.cfg.TempDir)
	defer c.ws.remove()
	if c.ws != nil {
		c.ws.copy = c.cfg.Mode.Writes() || c.cfg.Pending || c.leaks.Len() > 0
		hc.OnEnd = c.ws.take
	}
	c.fx = fixtureSide(c.s, c.rules, c.native()) // while the agent runs
	defer c.fx.wait()
	hc.OnWire = func(stdout [][]byte, sent []harness.Sent, incarnations []int, final bool) {
		n := [3]int{len(stdout), len(sent), len(incarnations)}
		if final && c.wire != nil && c.wire.n == n {
			return // the agent wrote nothing more while it exited: its check holds
		}
		if c.wire != nil {
			c.wire.wait()
		}
		c.wire = checkWire(stdout, sent, incarnations, c.cfg.Corpus)
	}
	defer func() {
		if c.wire != nil {
			c.wire.wait()
		}
	}()
	res, err := harness.Run(ctx, hc)
	o = c.judge(ctx, o, res, err)
	return o.release(res)
}

// judge judges the run that returned res and err: a failed run, a broken
// protocol or a leaked secret fails; else the live side, normalized and
// with the corpus's rules applied, is compared with the fixtures.
func (c *checker) judge(ctx context.Context, o Outcome, res *harness.Result, err error) Outcome {
	if res != nil {
		o.Duration, o.Stderr = res.Duration, res.Stderr
	}
	if err == nil && c.cfg.AfterRun != nil {
		err = c.cfg.AfterRun()
	}
	if err != nil {
		return c.runFailed(o, res, err)
	}
	var broken *Broken
	if c.wire == nil {
		broken = protocolBreaks(res, c.cfg.Corpus) // before normalizing lets the raw stdout go
	}
	got, err := normalizeLive(res)
	if c.wire != nil {
		broken = c.wire.wait()
	}
	if err == nil {
		err = leaked(c.leaks, c.dir, got, c.ws)
	}
	if err == nil {
		err = leakedPins(c.leaks, c.pins)
	}
	if err == nil && broken != nil {
		broken.show(got)
		err = broken
	}
	if err != nil {
		return o.fail(err)
	}
	c.rules.apply(got)
	o = c.compare(ctx, o, got)
	if o.Status == Failed {
		o.Got = got
	}
	return o.noted(res, got, c.pins)
}

// runFailed is o failed by the run's error err: with the cap to raise
// when the agent made too many model calls, and the mode that accepts a
// request drift (a recorded answer to another question is no fixture).
func (c *checker) runFailed(o Outcome, res *harness.Result, err error) Outcome {
	o = o.fail(withDrift(err, res))
	if errors.Is(err, proxy.ErrTooManyCalls) {
		o.Reason += fmt.Sprintf("\nraise the cap with model.maxCalls in %s (default %d) if the agent needs more calls", scenario.CorpusFile, proxy.DefaultMaxCalls)
	}
	if res != nil && res.RequestDrift {
		o.Accept = rerecord(c.dir, c.s.Manifest)
		o.PinFiles, o.PinDrift = driftChange(res.Drifts)
	}
	return o
}

// harnessConfig is how the harness runs the scenario: the mode, and what
// the corpus says about the agent.
func (c *checker) harnessConfig() (harness.Config, error) {
	hc := harness.Config{Settings: c.cfg.Settings, Dir: c.dir, Scenario: c.s}
	if c.cfg.Corpus != nil {
		if err := c.applyCorpus(&hc); err != nil {
			return hc, err
		}
	}
	return hc, nil
}

// comparison is what comparing the live side with the fixture side found.
type comparison struct {
	files  []fileDiff // the differing fixtures, stdout first
	wsDiff string     // the expected workspace's diff
	stale  Mode       // the mode that rewrites committed files not in normal form
	raw    *scenario.Transcript
	want   *scenario.Transcript
}

// compare diffs the live transcript got against the fixture side and
// writes what the mode allows. A scenario with no fixture yet (scaffolded
// by `new`) is written in Record mode without a comparison.
func (c *checker) compare(ctx context.Context, o Outcome, got *scenario.Transcript) Outcome {
	np := c.native()
	f := c.s.Fixture
	switch {
	case f == nil && c.cfg.Mode != Record:
		return o.fail(c.s.FixtureErr)
	case f == nil:
		if np != nil {
			np.live(got, nil)
		}
		return c.write(ctx, o, got)
	}
	want, stale, err := c.fx.wait()
	if err != nil {
		return o.fail(err)
	}
	if np != nil {
		np.live(got, want)
		if len(np.drift) > 0 && c.cfg.Mode != Record {
			return c.pinDrift(o, np, want, got)
		}
	}
	cmp := comparison{want: want, stale: stale, raw: &scenario.Transcript{Stdout: f.Stdout, Logs: f.Logs}}
	cmp.files = diffTranscripts(c.home(), want, got, c.cfg.diffConfig())
	if cmp.wsDiff, err = o.compareWorkspace(c.ws, want, got, c.cfg); err != nil {
		return o.fail(err)
	}
	o.Diff = joinDiffs(cmp.files) + cmp.wsDiff
	if cmp.wsDiff == "" {
		o.Change, o.ChangeFiles = lineChange(want, got, cmp.files)
	}
	return c.decide(ctx, o, got, cmp)
}

// pinDrift fails a native scenario whose live requests name other pins
// than its fixtures: a changed model input, which only a new recording
// accepts. The change of the pins is shown once, then the rest of the
// diff.
func (c *checker) pinDrift(o Outcome, np *nativePins, want, got *scenario.Transcript) Outcome {
	pinFiles, d := np.driftDiff(c.cfg.diffConfig())
	o.Status, o.Diff, o.Accept = Failed, d, rerecord(c.dir, c.s.Manifest)
	o.PinFiles, o.PinDrift = pinFiles, d
	o.Reason = "the agent's request differs from the pin its recording names (" + strings.Join(pinFiles, ", ") + "): a changed model input, which only " + string(o.Accept) + " accepts"
	np.mask(got) // the change of the pins is shown once, above
	if files := diffTranscripts(c.home(), want, got, c.cfg.diffConfig()); len(files) > 0 {
		o.Diff += joinDiffs(files)
	}
	return o
}

// decide says what the comparison cmp means in this mode, and does it:
// pass, write the fixtures, write pending files, or fail with the mode
// that would accept the difference.
func (c *checker) decide(ctx context.Context, o Outcome, got *scenario.Transcript, cmp comparison) Outcome {
	mode := c.cfg.Mode
	switch {
	case cmp.wsDiff != "" || len(cmp.files) > 0 && cmp.files[0].log:
		o.Accept = Refresh
		if where := inputDrift(cmp.want, got); where != "" {
			// The replay answered a question the recording never asked: a
			// recorded answer to a different question is no fixture.
			o.Accept = rerecord(c.dir, c.s.Manifest)
			if mode == Refresh {
				o.Status, o.Reason = Failed, "the model's input changed ("+where+"); only record (or re-authoring the model) accepts that, refresh does not"
				return o
			}
		}
	case len(cmp.files) > 0:
		o.Accept = Update
	case mode.Writes() && cmp.stale != "":
		return c.restale(ctx, o, got, cmp)
	default:
		o.Status = Passed
		return c.clearPending(o)
	}
	if c.cfg.Pending || !canAccept(mode, o.Accept) {
		o.Status, o.Reason = Failed, "output differs from the fixture"
		return c.pending(o, cmp.files, cmp.wsDiff != "")
	}
	if c.cfg.CI && len(o.Obsolete) > 0 {
		return o.fail(fmt.Errorf("check: obsolete fixtures %s and CI is set: refusing to remove them", strings.Join(o.Obsolete, ", ")))
	}
	return c.write(ctx, o, got)
}

// restale rewrites fixtures that are equal once normalized but whose
// committed bytes are not in normal form, if the mode may write those
// files.
func (c *checker) restale(ctx context.Context, o Outcome, got *scenario.Transcript, cmp comparison) Outcome {
	switch {
	case !canAccept(c.cfg.Mode, cmp.stale):
		o.Status, o.Reason, o.Accept = Failed, "a session log is not in normal form", cmp.stale
		return o
	case c.cfg.Pending:
		o.Status, o.Reason, o.Accept = Failed, "a fixture is not in normal form", cmp.stale
		return c.pending(o, diffTranscripts(c.home(), cmp.raw, got, c.cfg.diffConfig()), false)
	}
	return c.write(ctx, o, got)
}

// write accepts the live transcript: stdout only in Update mode, stdout and
// the logs otherwise. A run that produced no session log cannot become a
// scenario (session.jsonl is required), so it writes nothing. What it
// writes is replayed once before it is published (writeFixture), except in
// a direct pass, whose private copy is replayed as a whole.
func (c *checker) write(ctx context.Context, o Outcome, got *scenario.Transcript) Outcome {
	mode := c.cfg.Mode
	files := map[string][]byte{scenario.StdoutFile: got.Stdout}
	ws := c.ws
	if mode == Update {
		ws = nil
	} else {
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
	var verify func(string) error
	if !c.pass.direct {
		verify = verifier(ctx, c.dir, c.cfg, c.pins, c.root())
	}
	wrote, err := writeFixture(c.dir, files, ws, mode != Update, verify)
	if err != nil {
		return o.refused(err)
	}
	if ws != nil {
		wrote = append(wrote, scenario.ExpectedDir+"/")
	}
	o.Status, o.Wrote, o.Accept = Passed, wrote, ""
	return o
}

// pending writes the pending files of a differing scenario when the run
// asks for them (never under CI), and the pins a pending log names: a pin
// file never changes, so writing it can spoil nothing, and accepting the
// log later needs it. A staged copy's pending files go beside the
// fixtures of the folder it stands for, since the copy is never published
// when its scenario differs.
func (c *checker) pending(o Outcome, files []fileDiff, wsDiffers bool) Outcome {
	if !c.cfg.Pending || c.cfg.CI {
		return o
	}
	if _, err := c.pins.Write(); err != nil {
		return o.fail(fmt.Errorf("check: %w", err))
	}
	wrote, err := writePending(c.home(), files, c.ws, wsDiffers)
	o.Pending = wrote
	if err != nil {
		return o.fail(err)
	}
	return o
}

// clearPending removes the pending files of a scenario that now passes,
// in a run that writes them.
func (c *checker) clearPending(o Outcome) Outcome {
	if !c.cfg.Pending || c.cfg.CI {
		return o
	}
	if err := scenario.ClearPending(c.home()); err != nil {
		return o.fail(fmt.Errorf("check: remove old pending files of %s: %w", c.home(), err))
	}
	return o
}
