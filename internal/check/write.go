package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/probe"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// writeFixture writes files (name → content) into dir, and the run's
// workspace as workspace.expected/ when ws is not nil. With pruneChildren,
// child logs beyond those written are removed. It returns the names
// written, sorted.
//
// With verify (every writing mode but the private copy a scripted
// recording works in), what is about to be published is replayed first:
// the scenario is copied beside dir, the files go into the copy, verify
// replays the copy, and only when that passes does the copy take dir's
// place in one step (safefile.Publish). A failed verify leaves dir
// exactly as it was.
func writeFixture(dir string, files map[string][]byte, ws *workspace, pruneChildren bool, verify func(stage string) error) ([]string, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	write := func(into string) error {
		if ws != nil {
			if err := ws.write(filepath.Join(into, scenario.ExpectedDir)); err != nil {
				return err
			}
		}
		for _, n := range names {
			if err := safefile.Write(filepath.Join(into, n), files[n], 0o644); err != nil {
				return fmt.Errorf("check: write %s: %w", filepath.Join(dir, n), cause(err))
			}
		}
		if !pruneChildren {
			return nil
		}
		for _, p := range scenario.ChildLogs(into) {
			if _, ok := files[filepath.Base(p)]; !ok {
				if err := os.Remove(p); err != nil {
					return fmt.Errorf("check: remove stale %s: %w", filepath.Join(dir, filepath.Base(p)), cause(err))
				}
			}
		}
		return nil
	}
	var err error
	if verify == nil {
		err = write(dir)
	} else {
		err = safefile.Publish(dir, func(stage string) error {
			if err := write(stage); err != nil {
				return err
			}
			return verify(stage)
		})
	}
	if err != nil {
		return nil, err
	}
	return names, nil
}

// cause is the error of a path operation without the (staged) path.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// unverified is a write refused because what it would publish does not
// replay: the replay's outcome says why, and vary are the request values
// it sent otherwise than the recording, when nothing else differed.
type unverified struct {
	o    Outcome
	vary []probe.Variance
}

func (u *unverified) Error() string {
	if len(u.vary) > 0 {
		return volatileMessage(u.vary)
	}
	return "what this run would write does not replay, so nothing was written: " + u.o.Reason
}

// verifier replays a staged copy of the scenario dir with cfg's agent and
// corpus, as a plain run would replay the published one, and then writes
// the pins the check made (pins), before the copy is published: a
// published log never names a pin the corpus lacks, and a refused one
// writes no pin. A refusal names dir, never the hidden stage
// (.<name>.publish-<pid>-<random>/<name>).
func verifier(ctx context.Context, dir string, cfg Config, pins *httplog.Pins, root string) func(stage string) error {
	cfg.Mode, cfg.Pending, cfg.AfterRun, cfg.OnStart = Replay, false, nil, nil
	// The stage is read from disk: it is not among the folders the run read.
	cfg.Folders = nil
	p := pass{root: root}
	return func(stage string) error {
		// What the replay pins is the write's already.
		if o := newChecker(stage, cfg, p, pins.Overlay()).check(ctx); o.Status != Passed {
			o.Reason = strings.ReplaceAll(o.Reason, stage, dir)
			o.Diff = strings.ReplaceAll(o.Diff, stage, dir)
			return &unverified{o, varying(o, stage)}
		}
		if _, err := pins.Write(); err != nil {
			return fmt.Errorf("check: %w", err)
		}
		return nil
	}
}

// refused is o failed by a write that verify refused: its reason, and the
// diff of the replay that failed.
func (o Outcome) refused(err error) Outcome {
	o = o.fail(err)
	var u *unverified
	if errors.As(err, &u) {
		o.Diff, o.Stderr = u.o.Diff, u.o.Stderr
		o.Accept = "" // the same write would be refused again
	}
	return o
}
