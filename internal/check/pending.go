package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// writePending writes the run's version of every differing fixture beside
// it as <name>.new (the expected workspace as workspace.expected.new/),
// never the fixture itself, after removing the scenario's older pending
// files. A fixture the run no longer produced gets none (it is listed as
// obsolete). It returns the names written.
func writePending(dir string, files []fileDiff, ws *workspace, wsDiffers bool) ([]string, error) {
	if err := scenario.ClearPending(dir); err != nil {
		return nil, fmt.Errorf("check: remove old pending files of %s: %w", dir, err)
	}
	var wrote []string
	for _, f := range files {
		if f.got == nil {
			continue
		}
		name := f.name + scenario.PendingSuffix
		if err := safefile.Write(filepath.Join(dir, name), f.got, 0o644); err != nil {
			return wrote, fmt.Errorf("check: write pending %s: %w", filepath.Join(dir, name), err)
		}
		wrote = append(wrote, name)
	}
	if wsDiffers {
		name := scenario.ExpectedDir + scenario.PendingSuffix
		if err := ws.write(filepath.Join(dir, name)); err != nil {
			return wrote, fmt.Errorf("check: write pending %s: %w", filepath.Join(dir, name), err)
		}
		wrote = append(wrote, name)
	}
	return wrote, nil
}

// checkPending refuses to accept p unless it is a pending fixture of dir
// as a -pending run writes it (scenario.IsPending): the expected
// workspace's a folder, the others regular files.
func checkPending(dir, p string) error {
	name := filepath.Base(p)
	if filepath.Dir(p) != filepath.Clean(dir) || !scenario.IsPending(name) {
		return fmt.Errorf("check: accept %s: not a pending file of %s (a -pending run writes only %s)", p, dir, pendingNames)
	}
	st, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("check: accept %s: %w", p, err)
	}
	if wantDir := name == scenario.ExpectedDir+scenario.PendingSuffix; st.IsDir() != wantDir || !wantDir && !st.Mode().IsRegular() {
		return fmt.Errorf("check: accept %s: a %s, not what a -pending run writes there: refusing to install it (remove it with acpsnap reject)", p, fileKind(st.Mode()))
	}
	return nil
}

// pendingNames are the pending fixtures a run writes, for messages.
var pendingNames = fmt.Sprintf("%s%[5]s, %[2]s%[5]s, %[3]s%[5]s and %[4]s%[5]s",
	scenario.StdoutFile, scenario.SessionFile, "session.N.jsonl", scenario.ExpectedDir, scenario.PendingSuffix)

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m.IsRegular():
		return "regular file"
	}
	return m.Type().String()
}

// Accept installs the pending files of the scenario folder dir (each a
// <name>.new file or workspace.expected.new/ folder directly inside dir)
// over their fixtures, by the path every write takes: in a staged copy of
// dir the pending files replace their fixtures, the copy is replayed once
// with cfg's agent and corpus, and only when that replay passes does it
// take dir's place (the accepted pending files gone with it). A failed
// replay leaves dir as it was, fixtures and pending files alike; the
// outcome then carries the replay's diff. A pending file the agent wrote
// replays; one edited by hand, or one the agent no longer produces, does
// not.
func Accept(ctx context.Context, dir string, pending []string, cfg Config) Outcome {
	start := time.Now()
	o := Outcome{Name: filepath.Base(dir)}
	for _, p := range pending {
		if err := checkPending(dir, p); err != nil {
			return o.fail(err)
		}
	}
	c := newChecker(dir, cfg, pass{}, nil)
	verify := verifier(ctx, dir, cfg, c.pins, c.root())
	err := safefile.Publish(dir, func(stage string) error {
		for _, p := range pending {
			from := filepath.Join(stage, filepath.Base(p))
			to := scenario.PendingTarget(from)
			if err := os.RemoveAll(to); err != nil {
				return fmt.Errorf("check: accept %s: %w", p, cause(err))
			}
			if err := os.Rename(from, to); err != nil {
				return fmt.Errorf("check: accept %s: %w", p, cause(err))
			}
			o.Wrote = append(o.Wrote, filepath.Base(to))
		}
		return verify(stage)
	})
	o.Duration = time.Since(start)
	if err != nil {
		o.Wrote = nil
		var u *unverified
		if !errors.As(err, &u) {
			return o.fail(err)
		}
		o = o.fail(fmt.Errorf("the scenario with its pending files does not replay, so nothing was accepted: %s", u.o.Reason))
		o.Stderr = u.o.Stderr
		// the diff names the pending files, not the fixtures they became
		// (the verifier named dir already, not the stage)
		o.Diff = u.o.Diff
		for _, p := range pending {
			o.Diff = strings.ReplaceAll(o.Diff, scenario.PendingTarget(p), p)
		}
		return o
	}
	o.Status = Passed
	return o
}
