package cli

import (
	"fmt"

	"github.com/acpsnap/acpsnap/internal/check"
)

const pinsUsage = `usage: acpsnap pins <command> [-dir D]

commands:
  prune    remove the pin files no scenario names (acpsnap verify lists them)
  migrate  convert a corpus whose pins are of the old form (pins/agent.system.md,
           {{pin:agent:system}}) to pins named by their content
`

// pinsCmd runs "acpsnap pins …" (docs/format.md, "Composed log").
func (e *env) pinsCmd(args []string) error {
	if len(args) == 0 {
		return usagef("pins: want a command\n%s", pinsUsage)
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "prune", "migrate":
		dir, err := e.pinsDir(sub, rest)
		if err != nil {
			return err
		}
		if sub == "prune" {
			return e.prunePins(dir)
		}
		return e.migratePins(dir)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, pinsUsage)
		return nil
	default:
		return usagef("pins: unknown command %q\n%s", sub, pinsUsage)
	}
}

// pinsDir parses the flags of a pins command: the corpus.
func (e *env) pinsDir(sub string, args []string) (string, error) {
	fs := e.flags("pins " + sub)
	dir := fs.String("dir", "", dirUsage)
	if err := parse(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() > 0 {
		return "", usagef("pins %s: unexpected arguments %q", sub, fs.Args())
	}
	return findCorpus(*dir, false)
}

func (e *env) prunePins(dir string) error {
	removed, err := check.PrunePins(dir)
	for _, p := range removed {
		fmt.Fprintf(e.stdout, "removed %s\n", p)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %d pin file(s) removed\n", dir, len(removed))
	return nil
}

func (e *env) migratePins(dir string) error {
	m, err := check.MigratePins(dir)
	if err != nil {
		return err
	}
	for _, p := range m.Pins {
		fmt.Fprintf(e.stdout, "wrote %s\n", p)
	}
	for _, p := range m.Logs {
		fmt.Fprintf(e.stdout, "rewrote %s\n", p)
	}
	for _, p := range m.Removed {
		fmt.Fprintf(e.stdout, "removed %s\n", p)
	}
	fmt.Fprintf(e.stdout, "%s: %d log(s) rewritten, %d pin file(s) written, %d of the old form removed\n", dir, len(m.Logs), len(m.Pins), len(m.Removed))
	return nil
}
