package check

import (
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/textdiff"
)

// fileDiff is one fixture file that differs from what the run produced.
type fileDiff struct {
	name string // the file's name in the scenario folder
	got  []byte // the run's normalized content; nil: the run no longer produced it
	diff string // the readable diff (-want +got)
	log  bool   // a session log (Refresh accepts it), not stdout
}

// contextElide is where a context line of a fixture diff is cut: enough to
// recognise the event, so that three context lines on each side of a
// change cost little next to the change itself.
const contextElide = 48

// diffConfig is how the diffs of a check are rendered.
func (c Config) diffConfig() textdiff.Config {
	return textdiff.Config{Color: c.DiffColor, MaxBytes: c.DiffMaxBytes, Elide: contextElide, Width: c.DiffWidth}
}

// diffTranscripts lists the differing files, logs first (paired by
// position: primary, then children), then stdout.
func diffTranscripts(dir string, want, got *scenario.Transcript, cfg textdiff.Config) []fileDiff {
	var out []fileDiff
	for i := 0; i < max(len(want.Logs), len(got.Logs)); i++ {
		var w, g []byte
		if i < len(want.Logs) {
			w = want.Logs[i]
		}
		if i < len(got.Logs) {
			g = got.Logs[i]
		}
		name := scenario.LogName(i)
		if d := textdiff.JSONFiles(filepath.Join(dir, name), "live "+name, w, g, cfg); d != "" {
			out = append(out, fileDiff{name: name, got: g, diff: d, log: true})
		}
	}
	if d := textdiff.JSONFiles(filepath.Join(dir, scenario.StdoutFile), "live stdout", want.Stdout, got.Stdout, cfg); d != "" {
		out = append(out, fileDiff{name: scenario.StdoutFile, got: got.Stdout, diff: d})
	}
	return out
}

// obsoleteLogs are the fixture's child logs the run no longer produced.
func obsoleteLogs(want, got *scenario.Transcript) []string {
	var out []string
	for i := len(got.Logs); i < len(want.Logs); i++ {
		if i > 0 {
			out = append(out, scenario.LogName(i))
		}
	}
	return out
}

// joinDiffs concatenates the files' diffs.
func joinDiffs(files []fileDiff) string {
	var sb strings.Builder
	for _, f := range files {
		sb.WriteString(f.diff)
	}
	return sb.String()
}

// compareWorkspace diffs the expected workspace (when the scenario has one)
// and records the obsolete fixtures: child logs and expected entries the
// run no longer produced.
func (o *Outcome) compareWorkspace(ws *workspace, want, got *scenario.Transcript, cfg Config) (string, error) {
	o.Obsolete = obsoleteLogs(want, got)
	if ws == nil {
		return "", nil
	}
	d, missing, err := ws.compare(cfg.diffConfig())
	o.Obsolete = append(o.Obsolete, missing...)
	return d, err
}
