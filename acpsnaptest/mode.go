package acpsnaptest

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/frontend"
)

// WriteEnv is the environment variable that selects a writing mode for
// tools that cannot pass test flags: one of the names of writes.
const WriteEnv = "ACPSNAP_WRITE"

// forceFlag writes fixtures even in CI.
const forceFlag = "acpsnap.force"

// write is one thing a go test run may write, selected by the flag
// -acpsnap.NAME or ACPSNAP_WRITE=NAME.
type write struct {
	name    string
	mode    check.Mode
	pending bool            // write <file>.new for review, never the fixture
	only    check.RecordSet // record: which scenarios ("": every live one)
	usage   string
}

// writes are the writing modes of go test, one home for their names.
var writes = []write{
	{name: "update", mode: check.Update, usage: "accept stdout changes (stdout.expected.jsonl)"},
	{name: "refresh", mode: check.Refresh, usage: "accept stdout and session-log changes; re-render authored scenarios"},
	{name: "record", mode: check.Record, usage: "re-record recording: live scenarios against the live model"},
	{name: "record-missing", mode: check.Record, only: check.RecordMissing, usage: "record only the scenarios not recorded yet"},
	{name: "record-drifted", mode: check.Record, only: check.RecordDrifted, usage: "re-record only the scenarios whose model requests drifted"},
	{name: "pending", mode: check.Replay, pending: true, usage: "write <file>.new beside each differing fixture for 'acpsnap review' (never the fixture)"},
}

func init() { registerFlags(flag.CommandLine) }

// registerFlags defines the writing flags on fs unless something already
// did (a second copy of this package in one binary, or a caller that
// defined them itself), under names no other library uses (a library's
// own -update never clashes).
func registerFlags(fs *flag.FlagSet) {
	for _, w := range writes {
		if fs.Lookup("acpsnap."+w.name) == nil {
			fs.Bool("acpsnap."+w.name, false, "acpsnap: "+w.usage)
		}
	}
	if fs.Lookup(forceFlag) == nil {
		fs.Bool(forceFlag, false, "acpsnap: write fixtures even when CI is set")
	}
}

// settings are what the flags and the environment ask for.
type settings struct {
	write
	force bool
	ci    bool
	shard shard
	junit string // XML_OUTPUT_FILE: write a JUnit report there; "": none
	// runfiles are Bazel's runfiles trees, whose links a corpus given as
	// Bazel data is read through (safefile.Trust); none outside Bazel.
	runfiles []string
}

// readSettings reads the writing flags of fs and the environment; it
// refuses two writing modes at once and a writing mode in CI unless forced.
func readSettings(fs *flag.FlagSet, getenv func(string) string) (settings, error) {
	b, err := frontend.ReadBazel(getenv)
	if err != nil {
		return settings{}, fmt.Errorf("acpsnaptest: %w", err)
	}
	s := settings{write: write{mode: check.Replay}, force: boolFlag(fs, forceFlag), ci: frontend.CI(getenv("CI")), junit: b.XMLOutput, runfiles: b.Runfiles}
	for _, w := range writes {
		if !boolFlag(fs, "acpsnap."+w.name) {
			continue
		}
		if s.name != "" {
			return s, fmt.Errorf("acpsnaptest: -acpsnap.%s and -acpsnap.%s: choose one writing mode", s.name, w.name)
		}
		s.write = w
	}
	if v := getenv(WriteEnv); v != "" {
		w, ok := writeNamed(v)
		switch {
		case !ok:
			return s, fmt.Errorf("acpsnaptest: %s=%q: want %s", WriteEnv, v, writeNames())
		case s.name != "" && s.name != v:
			return s, fmt.Errorf("acpsnaptest: -acpsnap.%s and %s=%s: choose one writing mode", s.name, WriteEnv, v)
		}
		s.write = w
	}
	w := frontend.Write{What: s.name, Fixtures: s.mode.Writes(), Pending: s.pending, ForceFlag: "-" + forceFlag}
	if err := frontend.WriteRefused(w, getenv("CI"), s.force); err != nil {
		return s, fmt.Errorf("acpsnaptest: %w", err)
	}
	s.shard, err = readShard(getenv, b)
	return s, err
}

func writeNamed(name string) (write, bool) {
	for _, w := range writes {
		if w.name == name {
			return w, true
		}
	}
	return write{}, false
}

// writeNames lists the names of writes: "update, refresh, … or pending".
func writeNames() string {
	var names []string
	for _, w := range writes {
		names = append(names, w.name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
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
