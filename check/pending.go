package check

import (
	"fmt"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/atomicfile"
	"github.com/acpsnap/acpsnap/scenario"
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
		if err := atomicfile.Write(filepath.Join(dir, name), f.got, 0o644); err != nil {
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

// pending writes the pending files of a differing scenario when cfg asks
// for them (never under CI).
func (o Outcome) pending(dir string, files []fileDiff, ws *workspace, wsDiffers bool, cfg Config) Outcome {
	if !cfg.Pending || cfg.CI {
		return o
	}
	wrote, err := writePending(dir, files, ws, wsDiffers)
	o.Pending = wrote
	if err != nil {
		return o.fail(err)
	}
	return o
}

// clearPending removes the pending files of a scenario that now passes,
// in a run that writes them.
func (o Outcome) clearPending(dir string, cfg Config) Outcome {
	if !cfg.Pending || cfg.CI {
		return o
	}
	if err := scenario.ClearPending(dir); err != nil {
		return o.fail(fmt.Errorf("check: remove old pending files of %s: %w", dir, err))
	}
	return o
}
