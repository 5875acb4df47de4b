package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"

	"github.com/acpsnap/acpsnap/internal/report"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/secrets"
)

// show prints a scenario's transcript from its committed fixtures.
func (e *env) show(args []string) error {
	fs := e.flags("show")
	dir := fs.String("dir", "", dirUsage)
	width := fs.Int("width", 0, "wrap at `N` columns (0: $COLUMNS, else the terminal's width, else 100)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("show: want one scenario name, got %d arguments\nusage: acpsnap show [-dir D] [-width N] NAME", fs.NArg())
	}
	name := fs.Arg(0)
	var err error
	if *dir, err = findCorpus(*dir, false); err != nil {
		return err
	}
	sdir := filepath.Join(*dir, name)
	if _, err := os.Stat(filepath.Join(sdir, scenario.ManifestFile)); err != nil {
		return usagef("show: %s: no scenario %q (no %s)", *dir, name, scenario.ManifestFile)
	}
	if scenario.Unrecorded(sdir) {
		return usagef("show: %s: not recorded yet, so there is no transcript", sdir)
	}
	t, err := report.Load(sdir)
	if err != nil {
		return usagef("show: %v", err)
	}
	cfg := report.TextConfig{Color: e.colour(e.stdout), Width: *width}
	if cfg.Width == 0 {
		cfg.Width, _ = strconv.Atoi(e.getenv("COLUMNS"))
	}
	if cfg.Width == 0 {
		cfg.Width = e.width(e.stdout) // the terminal's
	}
	var out bytes.Buffer
	if err := report.WriteText(&out, t, cfg); err != nil {
		return err
	}
	if err := secrets.New(nil, e.scanEnviron()).Check("show "+name, out.Bytes()); err != nil {
		return err // the fixtures hold a key: nothing is shown
	}
	_, err = e.stdout.Write(out.Bytes())
	return err
}
