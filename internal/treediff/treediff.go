package treediff

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/safefile"
)

// Kind is what differs about one entry.
type Kind int

// The kinds of difference.
const (
	Missing Kind = iota // in the expected tree only
	Extra               // in the got tree only
	Type                // a file in one tree, a directory or link in the other
	Mode                // permission bits
	Link                // symbolic link target
	Content             // file bytes
)

// Difference is one entry that differs. Want and Got describe the two sides
// in the terms of Kind: entry kinds ("file", "directory", "symlink"),
// modes ("-rwxr-xr-x"), link targets; for Content, Diff holds the rendering.
type Difference struct {
	Path      string
	Kind      Kind
	Want, Got string
	Diff      string
}

// String is the difference on one line.
func (d Difference) String() string {
	switch d.Kind {
	case Missing:
		return fmt.Sprintf("missing %s %s", d.Want, d.Path)
	case Extra:
		return fmt.Sprintf("extra %s %s", d.Got, d.Path)
	case Type:
		return fmt.Sprintf("%s: want a %s, got a %s", d.Path, d.Want, d.Got)
	case Mode:
		return fmt.Sprintf("%s: mode %s, want %s", d.Path, d.Got, d.Want)
	case Link:
		return fmt.Sprintf("%s: symlink to %q, want %q", d.Path, d.Got, d.Want)
	}
	return fmt.Sprintf("%s: content differs", d.Path)
}

// Config configures Compare and Copy.
type Config struct {
	// Normalize rewrites a got file's content, or a got link's target,
	// before it is compared or copied; rel is the slash-separated path in
	// the tree. nil: as it is.
	Normalize func(rel string, data []byte) []byte
	// Diff renders a content change (want and got after Normalize).
	// nil: the two sizes.
	Diff func(rel string, want, got []byte) string
	// Modes selects the permission bits compared. 0: 0o100, the bit git
	// keeps.
	Modes fs.FileMode
	// MaxFileBytes caps each file read or copied; 0:
	// safefile.DefaultMaxFileBytes (64 MiB). A bigger file is an error
	// naming it.
	MaxFileBytes int64
}

func (c Config) maxFileBytes() int64 {
	if c.MaxFileBytes > 0 {
		return c.MaxFileBytes
	}
	return safefile.DefaultMaxFileBytes
}

func (c Config) normalize(rel string, data []byte) []byte {
	if c.Normalize == nil {
		return data
	}
	return c.Normalize(rel, data)
}

func (c Config) diff(rel string, want, got []byte) string {
	if c.Diff == nil {
		return fmt.Sprintf("want %d bytes, got %d bytes", len(want), len(got))
	}
	return c.Diff(rel, want, got)
}

// entry is one thing found under a root.
type entry struct {
	kind   string // "file", "directory", "symlink", or "other"
	mode   fs.FileMode
	target string // symlinks
	abs    string
}

// scan lists the entries under root by slash-separated relative path,
// without following links. It refuses what a tree may not hold: an entry
// that is not a file, folder or link, a link whose target (through norm)
// leaves the tree, and a file over max bytes.
func scan(root string, norm func(rel string, data []byte) []byte, max int64) (map[string]entry, error) {
	fi, err := os.Lstat(root)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", root)
	}
	out := map[string]entry{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		info, err := safefile.Info(p, d) // a Bazel runfile is the file it mirrors
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(rel)
		e := entry{kind: kindOf(info.Mode()), mode: info.Mode(), abs: p}
		switch e.kind {
		case "file":
			if info.Size() > max {
				return fmt.Errorf("%s: %d bytes, more than the %d allowed", slash, info.Size(), max)
			}
		case "other":
			return fmt.Errorf("%s: not a file, folder or symbolic link (%s)", slash, safefile.Kind(info.Mode()))
		case "symlink":
			if e.target, err = os.Readlink(p); err != nil {
				return err
			}
			if t := string(norm(slash, []byte(e.target))); safefile.Escapes(slash, t) {
				return fmt.Errorf("%s: symlink to %q points out of the tree", slash, t)
			}
		}
		out[slash] = e
		return nil
	})
	return out, err
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "other"
}

// Compare lists how the got tree differs from the want tree, sorted by
// path; none means equal. It fails only when a tree cannot be read.
func Compare(want, got string, cfg Config) ([]Difference, error) {
	w, err := scan(want, Config{}.normalize, cfg.maxFileBytes())
	if err != nil {
		return nil, fmt.Errorf("treediff: expected tree: %w", err)
	}
	g, err := scan(got, cfg.normalize, cfg.maxFileBytes())
	if err != nil {
		return nil, fmt.Errorf("treediff: %w", err)
	}
	var out []Difference
	pruned := "" // a directory whose contents are already accounted for
	for _, rel := range union(w, g) {
		if pruned != "" && strings.HasPrefix(rel, pruned+"/") {
			continue
		}
		d, err := compareEntry(rel, w, g, cfg)
		if err != nil {
			return nil, fmt.Errorf("treediff: %w", err)
		}
		if d == nil {
			continue
		}
		if d.Kind == Missing || d.Kind == Extra || d.Kind == Type {
			pruned = rel
		}
		out = append(out, *d)
	}
	return out, nil
}

// Check refuses a tree that Compare or Copy would refuse: root not a real
// folder, an entry that is not a regular file, folder or symbolic link, a
// link that leaves the tree, a file over the cap. The error names the
// entry by its path in the tree. Nothing is read but the entries' metadata.
func Check(root string, cfg Config) error {
	if _, err := scan(root, Config{}.normalize, cfg.maxFileBytes()); err != nil {
		return fmt.Errorf("treediff: %w", err)
	}
	return nil
}

// union is the paths of both trees in tree order: sorted component by
// component, so that a directory's contents follow it directly ("a",
// "a/x", "a-b").
func union(a, b map[string]entry) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return strings.ReplaceAll(keys[i], "/", "\x00") < strings.ReplaceAll(keys[j], "/", "\x00")
	})
	return keys
}

// compareEntry compares one path present in either tree; nil when equal.
func compareEntry(rel string, w, g map[string]entry, cfg Config) (*Difference, error) {
	we, inW := w[rel]
	ge, inG := g[rel]
	switch {
	case !inG:
		return &Difference{Path: rel, Kind: Missing, Want: we.kind}, nil
	case !inW:
		return &Difference{Path: rel, Kind: Extra, Got: ge.kind}, nil
	case we.kind != ge.kind:
		return &Difference{Path: rel, Kind: Type, Want: we.kind, Got: ge.kind}, nil
	case we.kind == "symlink":
		if t := string(cfg.normalize(rel, []byte(ge.target))); t != we.target {
			return &Difference{Path: rel, Kind: Link, Want: we.target, Got: t}, nil
		}
		return nil, nil
	}
	mask := cfg.Modes
	if mask == 0 {
		mask = 0o100
	}
	if we.mode.Perm()&mask != ge.mode.Perm()&mask {
		return &Difference{Path: rel, Kind: Mode, Want: showMode(we.mode), Got: showMode(ge.mode)}, nil
	}
	if we.kind != "file" {
		return nil, nil
	}
	return compareContent(rel, we.abs, ge.abs, cfg)
}

// showMode is a mode as ls shows it, type and permission bits only.
func showMode(m fs.FileMode) string {
	return (m & (fs.ModeType | fs.ModePerm)).String()
}

func compareContent(rel, wantPath, gotPath string, cfg Config) (*Difference, error) {
	max := cfg.maxFileBytes()
	if cfg.Normalize == nil { // a stream comparison first: equal files are never held whole
		if eq, err := safefile.Equal(wantPath, rel, gotPath, rel, max); err != nil || eq {
			return nil, err
		}
	}
	wb, err := safefile.ReadAs(wantPath, rel, max)
	if err != nil {
		return nil, err
	}
	gb, err := safefile.ReadAs(gotPath, rel, max)
	if err != nil {
		return nil, err
	}
	gb = cfg.normalize(rel, gb)
	if bytes.Equal(wb, gb) {
		return nil, nil
	}
	return &Difference{Path: rel, Kind: Content, Diff: cfg.diff(rel, wb, gb)}, nil
}

// Format prints diffs one per line, each content change followed by its
// diff indented two spaces, and stops before maxBytes (0: no cap) with a
// line saying how many differences were left out. "" when diffs is empty.
func Format(diffs []Difference, maxBytes int) string {
	var sb strings.Builder
	for i, d := range diffs {
		s := d.String() + "\n"
		if d.Kind == Content && d.Diff != "" {
			s = d.String() + ":\n" + indent(d.Diff)
		}
		if maxBytes > 0 && sb.Len()+len(s) > maxBytes {
			fmt.Fprintf(&sb, "… %d more difference%s left out (output capped at %d bytes)\n", len(diffs)-i, plural(len(diffs)-i), maxBytes)
			break
		}
		sb.WriteString(s)
	}
	return sb.String()
}

func indent(s string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "") + "\n"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// IsText reports whether data looks like text: valid UTF-8 without NUL
// bytes. A Normalize func uses it to leave binary files alone.
func IsText(data []byte) bool {
	return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
}
