package acpsnaptest

import (
	"flag"
	"fmt"
	"os"

	"github.com/acpsnap/acpsnap/check"
)

// WriteEnv is the environment variable that selects a writing mode for
// tools that cannot pass test flags: update, refresh or record.
const WriteEnv = "ACPSNAP_WRITE"

// The flags, registered once on the command line's flag set under names
// that no other library uses (a library's own -update never clashes).
const (
	updateFlag  = "acpsnap.update"
	refreshFlag = "acpsnap.refresh"
	recordFlag  = "acpsnap.record"
	forceFlag   = "acpsnap.force"
)

func init() { registerFlags(flag.CommandLine) }

// registerFlags defines the writing flags on fs unless something already
// did (a second copy of this package in one binary, or a caller that
// defined them itself).
func registerFlags(fs *flag.FlagSet) {
	for name, usage := range map[string]string{
		updateFlag:  "acpsnap: accept stdout changes (stdout.expected.jsonl)",
		refreshFlag: "acpsnap: accept stdout and session-log changes; re-render authored scenarios",
		recordFlag:  "acpsnap: re-record recording: live scenarios against the live model",
		forceFlag:   "acpsnap: write fixtures even when CI is set",
	} {
		if fs.Lookup(name) == nil {
			fs.Bool(name, false, usage)
		}
	}
}

// settings are what the flags and the environment ask for.
type settings struct {
	mode  check.Mode
	force bool
	ci    bool
}

// readSettings reads the writing flags of fs and the environment; it
// refuses two writing modes at once and a writing mode in CI unless forced.
func readSettings(fs *flag.FlagSet, getenv func(string) string) (settings, error) {
	s := settings{mode: check.Replay, force: boolFlag(fs, forceFlag), ci: check.CI(getenv("CI"))}
	for _, m := range []check.Mode{check.Update, check.Refresh, check.Record} {
		if !boolFlag(fs, "acpsnap."+string(m)) {
			continue
		}
		if s.mode != check.Replay {
			return s, fmt.Errorf("acpsnaptest: -acpsnap.%s and -acpsnap.%s: choose one writing mode", s.mode, m)
		}
		s.mode = m
	}
	switch v := getenv(WriteEnv); v {
	case "":
	case string(check.Update), string(check.Refresh), string(check.Record):
		if s.mode != check.Replay && s.mode != check.Mode(v) {
			return s, fmt.Errorf("acpsnaptest: -acpsnap.%s and %s=%s: choose one writing mode", s.mode, WriteEnv, v)
		}
		s.mode = check.Mode(v)
	default:
		return s, fmt.Errorf("acpsnaptest: %s=%q: want update, refresh or record", WriteEnv, v)
	}
	if s.mode.Writes() && s.ci && !s.force {
		return s, fmt.Errorf("acpsnaptest: %s writes fixtures and CI is set (CI=%q): refusing (add -acpsnap.force to write anyway)", s.mode, getenv("CI"))
	}
	return s, nil
}

func boolFlag(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

// osSettings reads the process's command line and environment.
func osSettings() (settings, error) { return readSettings(flag.CommandLine, os.Getenv) }
