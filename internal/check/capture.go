package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/internal/treediff"
)

// CaptureConfig says how to capture a scenario from one session of a real
// ACP client with the agent (acpsnap capture, docs/format.md "Capture").
type CaptureConfig struct {
	// Config is how the agent runs, as in Record: Secrets are the live
	// model's (an HTTP corpus's upstream URL and key, which stay with the
	// proxy; a native agent's own variables). Mode, Pending and Folders
	// are not used.
	Config
	// Cwd is the client's folder: the agent works there, a session names
	// it, and it is the scenario's workspace/ seed (required).
	Cwd string
	// Client is what the client sends; ToClient where it reads (required).
	Client   io.Reader
	ToClient io.Writer
	// NoWorkspace leaves the folder out of the scenario (no workspace/);
	// Expected writes what the agent left there as workspace.expected/.
	NoWorkspace, Expected bool
	// Force replaces a scenario that exists; false: refuse it.
	Force bool
	// MaxFiles and MaxBytes bound the folder the scenario keeps; 0: 2000
	// files, 32 MiB.
	MaxFiles int
	MaxBytes int64
}

// Capture relays a client's session with the agent (harness.Capture) and,
// when the client has gone, writes it as the scenario dir: snapshot.yml,
// input.json, the override of its cancel points, workspace/ (the folder
// as it was before the agent started), the logs as Record writes them,
// stdout.expected.jsonl from a replay of input.json, and when asked
// workspace.expected/. Like every write, the scenario is staged, replayed
// and published only when that replay passes. It returns the outcome and
// what the scenario leaves out of what the client did.
func Capture(ctx context.Context, dir string, cc CaptureConfig) (o Outcome, notes []string) {
	o = Outcome{Name: filepath.Base(dir)}
	cfg := cc.Config
	cfg.Mode, cfg.Pending, cfg.Folders = Record, false, nil
	// What the record pass pins is written only when the scenario replays.
	ck := newChecker(dir, cfg, pass{}, nil)
	leaks := secretScan(cfg)
	defer func() { o = shown(leaks, o) }()
	tmp, err := os.MkdirTemp(cfg.TempDir, "acpsnap-capture-")
	if err != nil {
		return o.fail(fmt.Errorf("check: capture: %w", err)), nil
	}
	defer os.RemoveAll(tmp)
	c, err := cc.prepare(dir, tmp, leaks)
	if err != nil {
		return o.fail(err), nil
	}
	ck.s = &scenario.Scenario{Dir: dir, Manifest: c.manifest, Input: &scenario.Input{}}
	ck.rules = rulesFor(cfg.Corpus, c.manifest)
	hc, err := ck.harnessConfig()
	if err != nil {
		return o.fail(err), nil
	}
	got, err := harness.Capture(ctx, harness.CaptureConfig{Config: hc, Cwd: cc.Cwd, Client: cc.Client, ToClient: cc.ToClient})
	if got != nil && got.Result != nil {
		o.Duration, o.Stderr = got.Result.Duration, got.Result.Stderr
	}
	if err != nil {
		return o.fail(err), nil
	}
	if cc.Expected {
		if err := c.tree.copy(filepath.Join(tmp, "expected"), cwdTokens(cc.Cwd), leaks); err != nil {
			return o.fail(err), got.Notes
		}
	}
	// A signal ended the session as a disconnect does; what it captured is
	// written all the same (each replay is bounded by its own waits).
	wctx := context.WithoutCancel(ctx)
	return o.publishCapture(wctx, dir, c.files(got, tmp, cc), got.Result, cfg, ck.pins), got.Notes
}

// CaptureRefusal says why the scenario dir cannot be captured from the
// client's folder cwd, before anything starts: it exists (and force is
// not given), or the folder is the corpus itself. nil: it can.
func CaptureRefusal(dir, cwd string, force bool) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 && !force {
		return fmt.Errorf("capture: %s exists; capture another NAME, or replace it with -force", dir)
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if root, err := filepath.Abs(filepath.Dir(dir)); err == nil && root == abs {
		return fmt.Errorf("capture: the client's folder %s is the corpus; start the client in the project the agent works on", abs)
	}
	return nil
}

// capture is what a capture prepares before the agent starts.
type capture struct {
	tree     captureTree
	manifest *scenario.Manifest
	name     string
}

// prepare refuses what cannot be captured (a scenario that exists, the
// corpus as the client's folder), copies the folder as it is now (the
// seed) and makes the manifest the run reads.
func (cc CaptureConfig) prepare(dir, tmp string, leaks *secrets.Set) (*capture, error) {
	if err := CaptureRefusal(dir, cc.Cwd, cc.Force); err != nil {
		return nil, err
	}
	cwd, err := filepath.Abs(cc.Cwd)
	if err != nil {
		return nil, fmt.Errorf("check: capture: %w", err)
	}
	c := &capture{tree: newCaptureTree(cwd, filepath.Dir(dir), cc.MaxFiles, cc.MaxBytes), name: filepath.Base(dir)}
	if !cc.NoWorkspace {
		if err := c.tree.copy(filepath.Join(tmp, "seed"), nil, leaks); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(tmp, c.name, scenario.ManifestFile) // a manifest names its folder
	if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("check: capture: %w", err)
	}
	if err := os.WriteFile(path, c.manifestFile("captured", false), 0o644); err != nil {
		return nil, fmt.Errorf("check: capture: %w", err)
	}
	if c.manifest, err = scenario.LoadManifest(path); err != nil {
		return nil, fmt.Errorf("check: capture: %w", err)
	}
	return c, nil
}

// manifestFile is the scenario's snapshot.yml.
func (c *capture) manifestFile(reason string, override bool) []byte {
	b := fmt.Appendf(nil, "version: 1\nscenario: %s\nreason: %q\nrecording: live\n", c.name, reason)
	if override {
		b = append(b, "replay: { override: true }\n"...)
	}
	return append(b, "permission: auto\n"...)
}

// captured are the files and folders of a captured scenario, before its
// logs and stdout.
type captured struct {
	files          map[string][]byte
	seed, expected string // folders to copy as workspace/, workspace.expected/; "": none
}

// files are the scenario's files from what the capture saw.
func (c *capture) files(got *harness.Captured, tmp string, cc CaptureConfig) captured {
	reason := "captured from " + cmp.Or(got.Client, "a client")
	if got.Prompt != "" {
		p := got.Prompt
		if len(p) > 80 {
			p = p[:80] + "…"
		}
		reason += ": " + strings.Join(strings.Fields(p), " ")
	}
	out := captured{files: map[string][]byte{
		scenario.ManifestFile: c.manifestFile(reason, got.Override != nil),
		scenario.InputFile:    got.Input,
	}}
	if got.Override != nil {
		out.files[scenario.OverrideFile] = got.Override
	}
	if !cc.NoWorkspace {
		out.seed = filepath.Join(tmp, "seed")
	}
	if cc.Expected {
		out.expected = filepath.Join(tmp, "expected")
	}
	return out
}

// errCaptured stops a publish whose passes failed (their outcome says why).
var errCaptured = errors.New("check: the captured scenario does not replay")

// publishCapture writes the scenario in a stage: the captured files, the
// logs as Record writes them, then a Refresh of the stage that replays
// input.json and writes stdout.expected.jsonl, then the replay every
// write makes; only when all pass does the stage take dir's place, and
// only then are the pins its logs name written (verifier).
func (o Outcome) publishCapture(ctx context.Context, dir string, c captured, res *harness.Result, cfg Config, pins *httplog.Pins) Outcome {
	created := false
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		// Publish replaces a folder; a new one starts as a scenario not
		// recorded yet (its manifest and client script), which a run
		// killed before the publish leaves as such, never as a bare folder.
		if err := c.scaffold(dir); err != nil {
			os.RemoveAll(dir)
			return o.fail(fmt.Errorf("check: capture: %w", err))
		}
		created = true
	}
	p := pass{direct: true, root: filepath.Dir(dir)}
	verify := verifier(ctx, dir, cfg, pins, p.root)
	err := safefile.Publish(dir, func(stage string) error {
		if err := c.stage(stage); err != nil {
			return err
		}
		if o = o.captured(ctx, stage, res, cfg, p, pins); o.Status != Passed {
			return errCaptured
		}
		if err := c.sameWorkspace(stage); err != nil {
			o = o.fail(err)
			return errCaptured
		}
		return verify(stage)
	})
	if err != nil {
		if created {
			os.RemoveAll(dir)
		}
		if !errors.Is(err, errCaptured) {
			o = o.refused(err)
		}
		o.Wrote = nil
		return o
	}
	o.Status, o.Reason = Passed, ""
	o.Wrote = listScenario(dir)
	return o
}

// scaffold makes the new scenario folder dir with its files (manifest,
// client script, override): a scenario not recorded yet.
func (c captured) scaffold(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for name, b := range c.files {
		if err := safefile.Write(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// stage empties the stage (a scenario replaced with -force loses every
// old file) and writes the captured files and folders into it.
func (c captured) stage(stage string) error {
	entries, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(stage, e.Name())); err != nil {
			return err
		}
	}
	for name, b := range c.files {
		if err := os.WriteFile(filepath.Join(stage, name), b, 0o644); err != nil {
			return fmt.Errorf("check: capture: write %s: %w", name, err)
		}
	}
	for from, to := range map[string]string{c.seed: "workspace", c.expected: scenario.ExpectedDir} {
		if from == "" {
			continue
		}
		if err := treediff.Copy(from, filepath.Join(stage, to), treediff.Config{}); err != nil {
			return fmt.Errorf("check: capture: %s: %w", to, err)
		}
		if err := os.Chmod(filepath.Join(stage, to), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// captured writes the logs of the capture's run into the stage as Record
// writes them (stdout left empty: the client's own request ids are no
// fixture), then refreshes the stage: input.json replayed against them
// writes stdout.expected.jsonl, and a replay that asks the model anything
// else fails.
func (o Outcome) captured(ctx context.Context, stage string, res *harness.Result, cfg Config, p pass, pins *httplog.Pins) Outcome {
	c := newChecker(stage, cfg, p, pins)
	c.s = scenario.Load(stage)
	if err := cmp.Or(c.s.ManifestErr, c.s.InputErr); err != nil {
		return o.fail(err)
	}
	c.rules = rulesFor(cfg.Corpus, c.s.Manifest)
	c.rules.redact = cfg.Redact
	c.leaks = secretScan(cfg)
	c.fx = fixtureSide(c.s, c.rules, c.native())
	logs := *res
	logs.Stdout = nil
	if o = c.judge(ctx, o, &logs, nil); o.Status != Passed {
		o.Reason = "the captured model traffic cannot be written: " + o.Reason
		return o
	}
	cfg.Mode = Refresh
	again := newChecker(stage, cfg, p, pins).check(ctx)
	again.Name = o.Name
	if again.Status != Passed {
		again.Reason = "the session does not replay from input.json, so nothing was written: " + again.Reason
	}
	return again
}

// sameWorkspace refuses a scenario whose replay leaves the folder other
// than the agent left it during the capture.
func (c captured) sameWorkspace(stage string) error {
	if c.expected == "" {
		return nil
	}
	diffs, err := treediff.Compare(c.expected, filepath.Join(stage, scenario.ExpectedDir), treediff.Config{})
	if err != nil || len(diffs) == 0 {
		return err
	}
	return fmt.Errorf("the replay leaves the folder otherwise than the agent left it during the capture, so nothing was written:\n%s", treediff.Format(diffs, 8192))
}

// listScenario names the files of the scenario dir, a folder once.
func listScenario(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
