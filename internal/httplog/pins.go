package httplog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Pins are the pins of a corpus: the system prompts and tool schemas its
// logs carry, each stored once, in a file of the corpus's pins folder
// named by its content (docs/format.md, "Composed log"):
//
//	pins/system-<hash>.md    a system prompt, verbatim
//	pins/tools-<hash>.json   a tools value, indented
//
// <hash> is the first 12 hexadecimal digits of the SHA-256 of the file
// (what sha256sum prints for it). A log holds
// "{{pin:system:<hash>}}" or "{{pin:tools:<hash>}}" in the value's place,
// and reading it with the pins (Expand) restores the value exactly.
//
// A pin file is written once and never changed: another value is another
// file. So a scenario's log means the same whatever another scenario
// writes, two scenarios with different prompts each keep theirs, and two
// that write the same pin at once write the same bytes.
//
// A Pins reads the files of Dir when a value is first needed (checking
// that each file holds the value its name says) and keeps what it read. An
// Overlay reads through its base and keeps what it pins (Pin, Compose) its
// own until Write puts it in Dir. The zero value holds values only (no
// Dir). A Pins is safe for concurrent use.
type Pins struct {
	Dir string // the pins folder; "": no files, the values pinned only

	base  *Pins // an Overlay's: where values not its own are read
	mu    sync.Mutex
	own   map[string][]byte // the values pinned through this Pins, by file name
	added []string          // their names, in the order they were pinned
	disk  map[string][]byte // the files read from Dir (no base), by name
	// hashes are the hashes of the values pinned through p and its
	// overlays (no base), by kind and value: a corpus's logs repeat a few
	// values, each hashed once.
	hashes map[string]string
}

// Pin kinds: the second part of a placeholder and the first of a file name.
const (
	PinSystem = "system"
	PinTools  = "tools"
)

// maxPinBytes caps a pin file (read only as a regular file, never through
// a final link): 16 MiB.
const maxPinBytes = 16 << 20

// hashLen is the hexadecimal digits of a pin's hash.
const hashLen = 12

// OpenPins is the pins of the folder dir; nothing is read yet.
func OpenPins(dir string) *Pins { return &Pins{Dir: dir} }

// Overlay is a Pins that reads through p and keeps what it pins to
// itself: one run's, which that run writes (Write) or drops.
func (p *Pins) Overlay() *Pins { return &Pins{Dir: p.Dir, base: p} }

var (
	// pinRef is a placeholder as it sits in JSON: a string.
	pinRef = regexp.MustCompile(`"\{\{pin:(system|tools):([0-9a-f]{12})\}\}"`)
	// legacyRef is a placeholder of the old form, which named a pin
	// file the whole corpus shared: "{{pin:agent:system}}" (a hash is
	// never "system" or "tools", so no placeholder is of both forms).
	legacyRef = regexp.MustCompile(`"\{\{pin:([^:{}"\\]*):(system|tools)\}\}"`)
	pinFile   = regexp.MustCompile(`^(system-[0-9a-f]{12}\.md|tools-[0-9a-f]{12}\.json)$`)
)

// Placeholder is the string a log holds in place of the value v of kind
// (a prompt's text; a compact tools value): {{pin:<kind>:<hash>}}.
func Placeholder(kind string, v []byte) string {
	return placeholder(kind, fileHash(fileBytes(kind, v)))
}

func placeholder(kind, hash string) string { return "{{pin:" + kind + ":" + hash + "}}" }

// fileHash is the hash a pin file's name holds: of its bytes.
func fileHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:hashLen]
}

// FileName is the name of the pin file of a placeholder, and whether s
// is one (without its JSON quotes).
func FileName(s string) (string, bool) {
	m := pinRef.FindStringSubmatch(`"` + s + `"`)
	if m == nil || m[0] != `"`+s+`"` {
		return "", false
	}
	return fileName(m[1], m[2]), true
}

func fileName(kind, hash string) string {
	if kind == PinSystem {
		return "system-" + hash + ".md"
	}
	return "tools-" + hash + ".json"
}

// IsPinFile reports whether name is the name of a pin file.
func IsPinFile(name string) bool { return pinFile.MatchString(name) }

// Refs are the placeholders b (a log, or any JSON text) holds, sorted,
// each once.
func Refs(b []byte) []string {
	var out []string
	for _, m := range pinRef.FindAll(b, -1) {
		out = append(out, string(m[1:len(m)-1]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LegacyRefs are the placeholders of the old form in b
// ("{{pin:agent:system}}"), each once, in order of first appearance.
func LegacyRefs(b []byte) []string {
	var out []string
	for _, m := range legacyRef.FindAll(b, -1) {
		if s := string(m[1 : len(m)-1]); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Pin is the placeholder of the value v of kind (a prompt's text; a
// compact tools value), which p keeps from now on as its own.
func (p *Pins) Pin(kind string, v []byte) string {
	hash := p.hash(kind, v)
	name := fileName(kind, hash)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.own[name]; !ok {
		if p.own == nil {
			p.own = map[string][]byte{}
		}
		p.own[name] = bytes.Clone(v)
		p.added = append(p.added, name)
	}
	return placeholder(kind, hash)
}

// hash is the hash of the pin file of the value v of kind (a Pin kind),
// computed once for p and its overlays.
func (p *Pins) hash(kind string, v []byte) string {
	for p.base != nil {
		p = p.base
	}
	key := kind + "\x00" + string(v)
	p.mu.Lock()
	h, ok := p.hashes[key]
	p.mu.Unlock()
	if ok {
		return h
	}
	h = fileHash(fileBytes(kind, v))
	p.mu.Lock()
	if p.hashes == nil {
		p.hashes = map[string]string{}
	}
	p.hashes[key] = h
	p.mu.Unlock()
	return h
}

// Value is the value of the placeholder s (without its JSON quotes): the
// prompt's text, or the compact tools value.
func (p *Pins) Value(s string) ([]byte, error) {
	name, ok := FileName(s)
	if !ok {
		return nil, fmt.Errorf("sessionlog: %q is not a pin placeholder", s)
	}
	v, err := p.value(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: missing pin (the log refers to %s)", p.File(name), s)
	}
	return v, err
}

// File is the path of the pin file name.
func (p *Pins) File(name string) string {
	if p == nil || p.Dir == "" {
		return filepath.Join("pins", name)
	}
	return filepath.Join(p.Dir, name)
}

// value is the pin file name's value: p's own, else its base's, else
// read from Dir. A missing pin is fs.ErrNotExist.
func (p *Pins) value(name string) ([]byte, error) {
	if p == nil {
		return nil, fs.ErrNotExist
	}
	p.mu.Lock()
	v, ok := p.own[name]
	p.mu.Unlock()
	if ok {
		return v, nil
	}
	if p.base != nil {
		return p.base.value(name)
	}
	return p.stored(name)
}

// stored is the value of the pin file name in Dir, read once.
func (p *Pins) stored(name string) ([]byte, error) {
	if p.Dir == "" {
		return nil, fs.ErrNotExist
	}
	p.mu.Lock()
	v, ok := p.disk[name]
	p.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := readPin(p.File(name), name)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.disk == nil {
		p.disk = map[string][]byte{}
	}
	p.disk[name] = v
	p.mu.Unlock()
	return v, nil
}

// readPin reads the pin file path and checks that it holds the value its
// name says.
func readPin(path, name string) ([]byte, error) {
	b, err := safefile.Read(path, maxPinBytes)
	if err != nil {
		return nil, fmt.Errorf("sessionlog: pins: %w", err)
	}
	if h := fileHash(b); !strings.Contains(name, "-"+h+".") {
		return nil, fmt.Errorf("%s: holds another value than its name says (its SHA-256 starts %s): a pin file is never edited; a changed prompt or tool schema is recorded as a new pin", path, h)
	}
	if !strings.HasPrefix(name, PinTools) {
		return b, nil
	}
	if _, _, err := strictjson.Parse(b, path, 0, "$"); err != nil {
		return nil, fmt.Errorf("sessionlog: pins: %w", err)
	}
	var c bytes.Buffer
	_ = json.Compact(&c, b) // valid: checked above
	return c.Bytes(), nil
}

// fileBytes are the bytes of a pin file of kind (or a name that starts
// with it) holding v: a prompt verbatim, a tools value indented.
func fileBytes(kind string, v []byte) []byte {
	if !strings.HasPrefix(kind, PinTools) {
		return v
	}
	var b bytes.Buffer
	_ = json.Indent(&b, v, "", "  ")
	b.WriteByte('\n')
	return b.Bytes()
}

// PinFile is a pin file as Write writes it.
type PinFile struct {
	Path string
	Data []byte
}

// Fresh are the pins p pinned that Dir does not hold yet, as their files
// would be written, in the order they were pinned.
func (p *Pins) Fresh() []PinFile {
	if p == nil {
		return nil
	}
	root := p
	for root.base != nil {
		root = root.base
	}
	p.mu.Lock()
	names := slices.Clone(p.added)
	vals := make([][]byte, len(names))
	for i, n := range names {
		vals[i] = p.own[n]
	}
	p.mu.Unlock()
	var out []PinFile
	for i, name := range names {
		if _, err := root.stored(name); err == nil {
			continue
		}
		out = append(out, PinFile{p.File(name), fileBytes(name, vals[i])})
	}
	return out
}

// Write puts the fresh pins (Fresh) in Dir and returns their paths. Each
// file is created whole or not at all, and never replaces one: when
// another writer made it first, its bytes must be these.
func (p *Pins) Write() ([]string, error) {
	fresh := p.Fresh()
	if len(fresh) == 0 {
		return nil, nil
	}
	if p.Dir == "" {
		return nil, errors.New("sessionlog: pins: no pins folder to write to")
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("sessionlog: pins: %w", err)
	}
	var wrote []string
	for _, f := range fresh {
		if err := create(f.Path, f.Data); err != nil {
			return wrote, fmt.Errorf("sessionlog: pins: %w", err)
		}
		wrote = append(wrote, f.Path)
	}
	return wrote, nil
}

// create makes the file path holding data, atomically and only once: the
// data is staged beside it and linked into place, which fails when path
// exists. An existing file must hold data already.
func create(path string, data []byte) error {
	tmp, err := safefile.Stage(filepath.Dir(path), filepath.Base(path), data, 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		// No hard links here: a rename, only while path does not exist (two
		// writers of one pin write the same bytes).
		if _, serr := os.Lstat(path); errors.Is(serr, fs.ErrNotExist) {
			err = os.Rename(tmp, path)
		}
	}
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return err
	}
	old, rerr := safefile.Read(path, maxPinBytes)
	if rerr == nil && !bytes.Equal(old, data) {
		return fmt.Errorf("%s exists with other bytes: a pin file is never edited", path)
	}
	return rerr
}

// Expand restores the pinned values in b (a request body, or any JSON
// that holds placeholders). A placeholder whose pin is missing, or whose
// file holds another value, is an error naming the file; so is one of the
// old form, naming the command that converts the corpus.
func (p *Pins) Expand(b []byte) ([]byte, error) {
	if !bytes.Contains(b, pinMark) {
		return b, nil
	}
	if old := LegacyRefs(b); len(old) > 0 {
		return b, p.LegacyError(old[0])
	}
	var err error
	out := pinRef.ReplaceAllFunc(b, func(ref []byte) []byte {
		s := string(ref[1 : len(ref)-1])
		v, verr := p.Value(s)
		if verr != nil {
			if err == nil {
				err = verr
			}
			return ref
		}
		if bytes.HasPrefix(ref, []byte(`"{{pin:`+PinSystem)) {
			return quote(string(v))
		}
		return v
	})
	return out, err
}

// LegacyError says that the placeholder old is of the old form and how to
// convert the corpus.
func (p *Pins) LegacyError(old string) error {
	dir := ""
	if p != nil {
		dir = p.Dir
	}
	return fmt.Errorf("%s is a pin of the old form, one file the whole corpus shared: %s", old, MigrateHint(dir))
}

// MigrateHint says how to convert the corpus whose pins folder is dir
// ("": the default corpus) to pins named by their content.
func MigrateHint(dir string) string {
	cmd := "acpsnap pins migrate"
	if dir != "" {
		cmd += " -dir " + filepath.Dir(dir)
	}
	return "convert the corpus with: " + cmd
}
