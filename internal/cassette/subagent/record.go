package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

// stageSuffix names the cassette truncate and append write before it
// replaces the old one.
const stageSuffix = ".next"

// Record starts recording the subagent cassette at path under the writer
// lock (path + ".lock"). WriteMode "create" refuses an existing cassette;
// "truncate" writes a new one and replaces the old one only when the new
// one is complete; "append" verifies the existing cassette (its policy must
// be the one in force), copies its frames, so its chain continues byte for
// byte, and goes on with the next admission and occurrences. Close
// publishes.
func Record(path string, opts Options) (*Recorder, error) {
	if err := cassette.CheckPath(path); err != nil {
		return nil, err
	}
	s, err := opts.settings()
	if err != nil {
		return nil, err
	}
	release, err := lock(path)
	if err != nil {
		return nil, err
	}
	r, err := open(path, s)
	if err != nil {
		return nil, errors.Join(err, release())
	}
	r.release = release
	return r, nil
}

// open starts the tape of the write mode.
func open(path string, s settings) (*Recorder, error) {
	policy := policyOf(s)
	var old *Cassette
	if s.writeMode == WriteAppend {
		c, err := Load(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) || isMissing(path):
			// nothing to continue: a first recording
		case err != nil:
			return nil, fmt.Errorf("subagent cassette: append: %w", err)
		case c.Policy != policy:
			return nil, fmt.Errorf("subagent cassette: append: %s was recorded under another policy (requestStorage, redactSecrets or redactionPatterns differ)", c.Name)
		default:
			old = c
		}
	}
	if s.writeMode == WriteCreate || (s.writeMode == WriteAppend && old == nil && isMissing(path)) {
		w, err := cassette.Create(path, Kind(), policy)
		if err != nil {
			return nil, err
		}
		r := newRecorder(s, w)
		r.name = cassette.Display(path)
		return r, nil
	}
	return staged(path, s, policy, old)
}

func isMissing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// staged writes path+".next" and renames it over path on Close.
func staged(path string, s settings, policy Policy, old *Cassette) (*Recorder, error) {
	stage := path + stageSuffix
	w, err := cassette.Create(stage, Kind(), policy)
	if err != nil {
		return nil, err
	}
	r := newRecorder(s, w)
	r.name = cassette.Display(path)
	if old != nil {
		if err := copyFrames(w, path); err != nil {
			w.Close()
			return nil, err
		}
		r.seed(old.Interactions)
	}
	r.publish = func() error {
		if err := os.Rename(stage, path); err != nil {
			return fmt.Errorf("subagent cassette: %s: replace with the new recording (kept as %s): %w", r.name, cassette.Display(stage), errors.Unwrap(err))
		}
		return nil
	}
	return r, nil
}

// copyFrames appends the body frames of the cassette at path to w, in
// file order: same seq, same prev, same body, so the same hashes.
func copyFrames(w *cassette.Writer, path string) error {
	f, err := cassette.ReadFile(path, Kind())
	if err != nil {
		return fmt.Errorf("subagent cassette: append: %w", err)
	}
	for _, fr := range f.Frames {
		if err := w.Append(fr.Type, fr.Body); err != nil {
			return fmt.Errorf("subagent cassette: append: %w", err)
		}
	}
	return nil
}
