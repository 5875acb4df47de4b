package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// expectedToken matches a {{…}} token in an expected workspace file; only
// {{cwd}} is one there.
var expectedToken = regexp.MustCompile(`\{\{[A-Za-z]+(?::[^}]*)?\}\}`)

// checkExpected checks that the scenario's workspace.expected/ (if any) is
// in the form a refresh writes: regular files, folders and symbolic links
// that stay inside the tree, no pending files, and no token other than
// {{cwd}} in a text file.
func checkExpected(dir string) []Violation {
	root := filepath.Join(dir, scenario.ExpectedDir)
	if st, err := os.Lstat(root); err != nil || !st.IsDir() {
		if err == nil {
			return []Violation{{root, "not a folder (docs/format.md, \"workspace.expected/\")"}}
		}
		return nil
	}
	var vs []Violation
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if v := expectedEntry(p, filepath.ToSlash(rel), d); v != "" {
			vs = append(vs, Violation{p, v})
		}
		return nil
	})
	if err != nil {
		vs = append(vs, Violation{root, err.Error()})
	}
	return vs
}

// expectedEntry checks one entry of an expected tree; "" when it is fine.
func expectedEntry(p, rel string, d fs.DirEntry) string {
	t := d.Type()
	if info, err := safefile.Info(p, d); err == nil { // a Bazel runfile is the file it mirrors
		t = info.Mode().Type()
	}
	switch {
	case strings.HasSuffix(d.Name(), scenario.PendingSuffix):
		return "pending file inside the expected workspace: review it with 'acpsnap review', or 'acpsnap accept'/'acpsnap reject'"
	case t&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err.Error()
		}
		if j := path.Join(path.Dir(rel), filepath.ToSlash(target)); filepath.IsAbs(target) || j == ".." || strings.HasPrefix(j, "../") {
			return fmt.Sprintf("symbolic link to %q leaves the expected workspace", target)
		}
	case t.IsDir():
	case !t.IsRegular():
		return "not a regular file, folder or symbolic link"
	default:
		b, err := os.ReadFile(p)
		if err != nil {
			return err.Error()
		}
		if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			return ""
		}
		for _, tok := range expectedToken.FindAll(b, -1) {
			if string(tok) != "{{cwd}}" {
				return fmt.Sprintf("token %s: only {{cwd}} stands for a live value in an expected workspace", tok)
			}
		}
	}
	return ""
}

// checkPlaceholders checks that every {{fromRequest:<regex>}} in the
// string values of the logs parses, compiles and has a capture group.
func checkPlaceholders(paths []string, logs [][]byte) []Violation {
	var vs []Violation
	for i, raw := range logs {
		strictjson.Each(bytes.NewReader(raw), func(n int, line []byte) error {
			if !bytes.Contains(line, []byte("fromRequest:")) {
				return nil
			}
			var v any
			if json.Unmarshal(line, &v) != nil {
				return nil // the log parser reports it
			}
			eachString(v, func(s string) {
				if err := placeholderError(s); err != nil {
					vs = append(vs, Violation{paths[i], fmt.Sprintf("%s:%d: %v", paths[i], n, err)})
				}
			})
			return nil
		})
	}
	return vs
}

// placeholderError is why a string's request placeholders cannot expand.
func placeholderError(s string) error {
	toks, err := replay.FindPlaceholders(s)
	if err != nil {
		return err
	}
	for _, t := range toks {
		re, err := regexp.Compile(t.Regex)
		if err != nil {
			return fmt.Errorf("%s%s}}: %w", replay.PlaceholderOpener, t.Regex, err)
		}
		if re.NumSubexp() < 1 {
			return fmt.Errorf("%s%s}}: the regex has no capture group", replay.PlaceholderOpener, t.Regex)
		}
	}
	return nil
}

// eachString calls fn with every string of a decoded JSON value, keys
// excepted.
func eachString(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case []any:
		for _, e := range v {
			eachString(e, fn)
		}
	case map[string]any:
		for _, e := range v {
			eachString(e, fn)
		}
	}
}
