package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// pinFolder checks the corpus's pins folder: it holds pin files only, of
// the current form (httplog.Pins), and, with unreferenced, only ones a
// scenario names. A pin file's content is checked where a log names it.
func pinFolder(root string, unreferenced bool) []Violation {
	dir := filepath.Join(root, scenario.PinsDir)
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return []Violation{{dir, err.Error()}}
	}
	var vs []Violation
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch name := e.Name(); {
		case strings.HasPrefix(name, "."):
			// a killed write's leftover: pins prune removes it
		case httplog.IsPinFile(name) && regular(p, e):
		case httplog.IsLegacyFile(name):
			vs = append(vs, Violation{p, "a pin of the old form, one file the whole corpus shared: " + httplog.MigrateHint(dir)})
		default:
			vs = append(vs, Violation{p, "not a pin file (" + scenario.PinsDir + "/ holds system-<hash>.md and tools-<hash>.json files only)"})
		}
	}
	if !unreferenced {
		return vs
	}
	unused, err := UnreferencedPins(root)
	if err != nil {
		return append(vs, Violation{dir, err.Error()})
	}
	for _, p := range unused {
		vs = append(vs, Violation{p, "no scenario names this pin (remove it with: acpsnap pins prune -dir " + root + ")"})
	}
	return vs
}

// regular says whether the entry e at p is a regular file, or a link a
// Bazel test's runfiles tree made to one (safefile.Info).
func regular(p string, e os.DirEntry) bool {
	info, err := safefile.Info(p, e)
	return err == nil && info.Mode().IsRegular()
}

// UnreferencedPins lists the pin files of the corpus at root that no log
// of its scenarios names, committed or pending (<log>.new), sorted: what
// a record that changed a prompt leaves behind.
func UnreferencedPins(root string) ([]string, error) {
	used, err := referencedPins(root)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, scenario.PinsDir)
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	var out []string
	for _, e := range entries {
		if httplog.IsPinFile(e.Name()) && !used[e.Name()] {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// PrunePins removes the unreferenced pin files of the corpus at root
// (UnreferencedPins) and the leftovers of pin writes that never finished,
// and returns what it removed. Run it when no writing run is under way:
// a write publishes its pins just before the log that names them.
func PrunePins(root string) ([]string, error) {
	unused, err := UnreferencedPins(root)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, scenario.PinsDir)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if safefile.IsLeftover(e.Name()) {
			unused = append(unused, filepath.Join(dir, e.Name()))
		}
	}
	var removed []string
	for _, p := range unused {
		if err := os.Remove(p); err != nil {
			return removed, fmt.Errorf("check: prune %w", err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}

// referencedPins are the pin files the logs of the corpus at root name
// (committed and pending), by file name.
func referencedPins(root string) (map[string]bool, error) {
	logs, err := corpusLogs(root)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		for _, ph := range httplog.Refs(b) {
			name, _ := httplog.FileName(ph)
			used[name] = true
		}
	}
	return used, nil
}

// corpusLogs are the session logs of every scenario of the corpus at root,
// committed and pending, in name order.
func corpusLogs(root string) ([]string, error) {
	names, err := scenario.Names(root)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	var out []string
	for _, n := range names {
		entries, err := os.ReadDir(filepath.Join(root, n))
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		for _, e := range entries {
			if isLogName(strings.TrimSuffix(e.Name(), scenario.PendingSuffix)) && e.Type().IsRegular() {
				out = append(out, filepath.Join(root, n, e.Name()))
			}
		}
	}
	return out, nil
}

// isLogName reports whether name is the name of a session log.
func isLogName(name string) bool {
	return name == scenario.SessionFile || scenario.ChildIndex(name) > 0
}
