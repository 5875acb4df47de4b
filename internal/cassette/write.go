package cassette

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// PartialSuffix names the file a recording writes before it is published.
const PartialSuffix = ".partial"

// Writer records one cassette. Create makes <path>.partial exclusively and
// writes the header; Append adds body frames one at a time, each written in
// one Write and fsynced; Complete writes the trailer and publishes the file
// create-only. A Writer is safe for concurrent use: frames are serialised.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	name string // for messages
	kind Kind
	seq  int
	prev string
	done bool
	err  error // sticky: after a failed write nothing more is written
}

// CheckPath refuses an empty cassette path: it would name files
// (<path>.partial, <path>.lock) in whatever the current folder is.
func CheckPath(path string) error {
	if path == "" {
		return errors.New("cassette: no path given (an empty path would put .partial and .lock files in the current folder)")
	}
	return nil
}

// Create starts recording a cassette of kind at path with the given policy
// (any JSON-marshalable value, or json.RawMessage). It refuses when path or
// <path>.partial exists: a cassette is never overwritten, and a partial is
// another recording running or one that never finished (remove it by hand).
func Create(path string, kind Kind, policy any) (*Writer, error) {
	if err := CheckPath(path); err != nil {
		return nil, err
	}
	name := Display(path)
	for _, t := range kind.Types {
		if !validType(t) || t == TypeHeader || t == TypeComplete {
			return nil, fmt.Errorf("cassette: %s: kind %s: %q is not a body frame type name", name, kind.Name, t)
		}
	}
	pol, err := canonicalOf(policy)
	if err == nil {
		err = kind.policy(pol)
	}
	if err != nil {
		return nil, fmt.Errorf("cassette: %s: policy: %w", name, err)
	}
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("cassette: %s: already exists; refusing to overwrite a cassette (remove it to record again)", name)
	}
	f, err := os.OpenFile(path+PartialSuffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("cassette: %s%s: exists: another recording is running or one never finished (remove it to record again)", name, PartialSuffix)
	}
	if err != nil {
		return nil, fmt.Errorf("cassette: %s: create partial: %s", name, errReason(err))
	}
	w := &Writer{f: f, path: path, name: name, kind: kind}
	body, _ := strictjson.Encode(map[string]any{"format": Format, "version": Version, "kind": kind.Name, "policy": pol})
	if err := w.write(TypeHeader, body); err != nil {
		w.f.Close()
		return nil, err
	}
	return w, nil
}

// canonicalOf marshals v (json.RawMessage as is) and canonicalises it.
func canonicalOf(v any) (json.RawMessage, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		b, err := strictjson.Encode(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	return Canonical(raw)
}

// Append writes one body frame of type typ (one of the Kind's Types); body
// is any JSON-marshalable value or json.RawMessage, checked against the
// Kind's schema before it is written.
func (w *Writer) Append(typ string, body any) error {
	b, err := canonicalOf(body)
	if err != nil {
		return fmt.Errorf("cassette: %s: %s body: %w", w.name, typ, err)
	}
	if !slices.Contains(w.kind.Types, typ) {
		return fmt.Errorf("cassette: %s: %q is not a frame type of a %s cassette", w.name, typ, w.kind.Name)
	}
	if w.kind.Body != nil {
		if err := w.kind.Body(typ, b); err != nil {
			return fmt.Errorf("cassette: %s: %s body: %w", w.name, typ, err)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write(typ, b)
}

// write appends and fsyncs one frame; the caller holds mu (or owns w).
func (w *Writer) write(typ string, body json.RawMessage) error {
	switch {
	case w.err != nil:
		return w.err
	case w.done:
		return fmt.Errorf("cassette: %s: already complete or closed", w.name)
	}
	fr := Frame{Seq: w.seq, Prev: w.prev, Type: typ, Body: body}
	fr.Hash = fr.Sum()
	line := append(fr.Marshal(), '\n')
	if _, err := w.f.Write(line); err != nil {
		w.err = fmt.Errorf("cassette: %s: write frame %d: %s", w.name, fr.Seq, errReason(err))
		return w.err
	}
	if err := w.f.Sync(); err != nil {
		w.err = fmt.Errorf("cassette: %s: sync frame %d: %s", w.name, fr.Seq, errReason(err))
		return w.err
	}
	w.seq++
	w.prev = fr.Hash
	return nil
}

// Complete writes the trailer, closes the partial and publishes it at the
// path: a hard link, which fails rather than replace a file that appeared
// meanwhile, then the partial is removed. On error the partial stays.
func (w *Writer) Complete() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	body, _ := strictjson.Encode(map[string]any{"frames": w.seq + 1, "last": w.prev})
	if err := w.write(TypeComplete, body); err != nil {
		return err
	}
	w.done = true
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("cassette: %s: close partial: %s", w.name, errReason(err))
	}
	if err := os.Link(w.path+PartialSuffix, w.path); err != nil {
		return fmt.Errorf("cassette: %s: publish (the partial is kept): %s", w.name, linkReason(err))
	}
	syncDir(filepath.Dir(w.path))
	if err := os.Remove(w.path + PartialSuffix); err != nil {
		return fmt.Errorf("cassette: %s: remove partial after publishing: %s", w.name, errReason(err))
	}
	return nil
}

func linkReason(err error) string {
	if errors.Is(err, fs.ErrExist) {
		return "the cassette appeared meanwhile; not overwritten"
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return strings.TrimSpace(le.Op + ": " + le.Err.Error())
	}
	return err.Error()
}

// syncDir makes the new directory entry durable (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Close ends a recording that was not completed: the partial is closed and
// kept (it is evidence of the unfinished run), nothing is published. After
// Complete it does nothing.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	w.done = true
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("cassette: %s: close partial: %s", w.name, errReason(err))
	}
	return nil
}

// Frames is the number of frames written so far.
func (w *Writer) Frames() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq
}
