package check

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acpsnap/acpsnap/internal/normalize"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/textdiff"
	"github.com/acpsnap/acpsnap/internal/treediff"
)

// workspace is what a check knows of a scenario's expected workspace
// (docs/format.md, "workspace.expected/"): the folder, and a normalized
// copy of the cwd the run left, taken before the harness removes it.
type workspace struct {
	expected string // <dir>/workspace.expected
	tempDir  string // where the copy is made; "": os.TempDir()
	tmp      string // the folder holding the copy; "": none taken
	held     *safefile.Lease
	// copy makes take copy the cwd even when it equals the expected tree:
	// a mode that may write it, pending files, a secret scan of it. false:
	// an equal cwd is only compared, in place, and never copied.
	copy  bool
	equal bool // take found the cwd equal to the expected tree and copied nothing
}

// newWorkspace returns the expected workspace of the scenario in dir, or
// nil when the scenario has none (then nothing is compared or written).
func newWorkspace(dir, tempDir string) *workspace {
	p := filepath.Join(dir, scenario.ExpectedDir)
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return nil
	}
	return &workspace{expected: p, tempDir: tempDir}
}

// snap is the normalized copy of the run's cwd.
func (w *workspace) snap() string { return filepath.Join(w.tmp, "cwd") }

// take copies the run's cwd with {{cwd}} in place of its spellings in text
// files (harness.Config.OnEnd). Unless w.copy, a cwd equal to the expected
// tree once so rewritten is not copied: a replay that passes needs no
// copy to show or write, and on a disk every folder and file made and
// removed costs time. Anything else (a difference, a tree Compare
// refuses) is copied, and compare reports it from the copy.
func (w *workspace) take(cwd string) error {
	if !w.copy {
		diffs, err := treediff.Compare(w.expected, cwd, treediff.Config{Normalize: cwdTokens(cwd)})
		if err == nil && len(diffs) == 0 {
			w.equal = true
			return nil
		}
	}
	// The folder is held (a lease, package safefile): a killed run's copy is removed
	// by the next one that makes its own.
	parent := cmp.Or(w.tempDir, os.TempDir())
	safefile.Reap(parent, workspacePrefix) // one that stays is no reason to stop this run
	l, err := safefile.LeaseDir(parent, workspacePrefix)
	if err != nil {
		return fmt.Errorf("check: copy the run's workspace: %w", err)
	}
	w.tmp, w.held = l.Path(), l
	if err := treediff.Copy(cwd, w.snap(), treediff.Config{Normalize: cwdTokens(cwd)}); err != nil {
		return fmt.Errorf("check: copy the run's workspace: %w", err)
	}
	return nil
}

// workspacePrefix starts the name of a run's copy of its workspace, in
// the temporary folder: acpsnap-workspace-<pid>-<random>.
const workspacePrefix = "acpsnap-workspace-"

// remove deletes the copy.
func (w *workspace) remove() {
	if w != nil && w.held != nil {
		w.held.Remove()
	}
}

// compare diffs the expected tree with the run's copy. It returns the
// rendered tree diff ("" when equal) and the expected entries the run no
// longer produced.
func (w *workspace) compare(cfg textdiff.Config) (string, []string, error) {
	if w.equal {
		return "", nil, nil
	}
	if w.tmp == "" {
		return "", nil, errors.New("check: the run's workspace was not copied")
	}
	tc := treediff.Config{Diff: func(rel string, want, got []byte) string {
		if !treediff.IsText(want) || !treediff.IsText(got) {
			return fmt.Sprintf("binary: want %d bytes, got %d bytes", len(want), len(got))
		}
		return textdiff.JSONFiles(rel, "live "+rel, want, got, cfg)
	}}
	diffs, err := treediff.Compare(w.expected, w.snap(), tc)
	if err != nil || len(diffs) == 0 {
		return "", nil, err
	}
	var missing []string
	for _, d := range diffs {
		if d.Kind == treediff.Missing {
			missing = append(missing, filepath.Join(scenario.ExpectedDir, filepath.FromSlash(d.Path)))
		}
	}
	limit := cfg.MaxBytes
	if limit == 0 {
		limit = 8192
	}
	head := fmt.Sprintf("--- want: %s\n+++ got: live workspace\n", w.expected)
	return head + treediff.Format(diffs, limit), missing, nil
}

// write replaces the expected tree with the run's copy (to is the folder
// written: workspace.expected, or its pending workspace.expected.new).
func (w *workspace) write(to string) error {
	if w.tmp == "" {
		return errors.New("check: the run's workspace was not copied")
	}
	if err := treediff.Copy(w.snap(), to, treediff.Config{}); err != nil {
		return err
	}
	return os.Chmod(to, 0o755) // the copy's folder is made private
}

// cwdTokens rewrites the spellings of cwd in text files to {{cwd}},
// longest spelling first.
func cwdTokens(cwd string) func(rel string, data []byte) []byte {
	spellings := append([]string{cwd}, normalize.Aliases(cwd)...)
	slices.SortFunc(spellings, func(a, b string) int { return len(b) - len(a) })
	return func(_ string, data []byte) []byte {
		if !treediff.IsText(data) {
			return data
		}
		for _, s := range spellings {
			if s != "" && s != "/" && bytes.Contains(data, []byte(s)) {
				data = []byte(strings.ReplaceAll(string(data), s, "{{cwd}}"))
			}
		}
		return data
	}
}
