package check

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// Migration is what MigratePins changed.
type Migration struct {
	Logs    []string // the logs rewritten
	Pins    []string // the pin files written
	Removed []string // the pin files of the old form removed
}

// MigratePins converts the corpus at root from pins of the old form (one
// file per kind the whole corpus shared, pins/agent.system.md and
// pins/agent.tools.json, named in its logs as {{pin:agent:system}} and
// {{pin:agent:tools}}) to pins named by their content: each log,
// committed or pending, gets its old placeholders restored and its
// prompts and tool schemas pinned as a run pins them now; then the new
// pin files are written, the logs, and the old pin files are removed
// last, so that a migration stopped half way can be run again. Nothing is
// written when a log names an old pin that is missing. A corpus with
// nothing of the old form is left as it is.
func MigratePins(root string) (Migration, error) {
	var m Migration
	corpus, err := scenario.LoadCorpus(root)
	if err != nil {
		return m, err
	}
	logs, err := corpusLogs(root)
	if err != nil {
		return m, err
	}
	dir := filepath.Join(root, scenario.PinsDir)
	pins := httplog.OpenPins(dir).Overlay()
	changed := map[string][]byte{}
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			return m, fmt.Errorf("check: migrate: %w", err)
		}
		out, err := migrateLog(b, dir, pins, corpus.Native())
		if err != nil {
			return m, fmt.Errorf("check: migrate %s: %w", p, err)
		}
		if !bytes.Equal(out, b) {
			changed[p] = out
			m.Logs = append(m.Logs, p)
		}
	}
	if m.Pins, err = pins.Write(); err != nil {
		return m, fmt.Errorf("check: migrate: %w", err)
	}
	for _, p := range m.Logs {
		if err := safefile.Write(p, changed[p], 0o644); err != nil {
			return m, fmt.Errorf("check: migrate: %w", err)
		}
	}
	m.Removed, err = removeLegacyPins(dir)
	return m, err
}

// migrateLog is one log with its old placeholders restored from the old
// pin files in dir and its values pinned with pins: a composed log's whole
// request bodies, a native log's request/header events.
func migrateLog(b []byte, dir string, pins *httplog.Pins, native bool) ([]byte, error) {
	out, err := httplog.ExpandLegacy(b, dir)
	if err != nil {
		return nil, err
	}
	if native {
		return (&nativePins{pins: pins}).pinLog(out), nil
	}
	return httplog.Repin(out, pins)
}

// removeLegacyPins removes the pin files of the old form in dir.
func removeLegacyPins(dir string) ([]string, error) {
	entries, _ := os.ReadDir(dir)
	var removed []string
	for _, e := range entries {
		if !httplog.IsLegacyFile(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil {
			return removed, fmt.Errorf("check: migrate: %w", err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}
