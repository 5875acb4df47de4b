package cli

import (
	"errors"

	"github.com/acpsnap/acpsnap/internal/frontend"
)

// dirUsage is the usage of -dir in the commands that find the corpus.
const dirUsage = frontend.DirUsage

// findCorpus is the corpus a command works on (frontend.FindCorpus): dir
// when -dir names it, else the one found from the current folder. A
// command that starts a corpus (new, init) works on ./snapshots when there
// is none; for every other command that is a usage error.
func findCorpus(dir string, starts bool) (string, error) {
	found, err := frontend.FindCorpus(dir, "-dir")
	switch {
	case err == nil:
		return found, nil
	case starts && errors.Is(err, frontend.ErrNoCorpus):
		return frontend.DefaultCorpus, nil
	}
	return "", usagef("%v", err)
}

// writeRefused is the CI write policy (frontend.WriteRefused) for the
// command what, as a usage error.
func (e *env) writeRefused(what string, pending, force bool) error {
	w := frontend.Write{What: what, Fixtures: !pending, Pending: pending, ForceFlag: "-force"}
	if err := frontend.WriteRefused(w, e.getenv("CI"), force); err != nil {
		return usagef("%v", err)
	}
	return nil
}
