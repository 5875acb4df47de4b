package harvest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/safefile"
)

// Cassette is where the agent (or an MCP proxy) finds the cassette name:
// the scenario's own in dir in replay, a fresh file in the sessions
// folder in record (harvested from there).
func (r *Roots) Cassette(record bool, dir, name string) string {
	if record {
		return filepath.Join(r.Sessions, name)
	}
	return filepath.Join(dir, name)
}

// SeedHome copies the corpus's home seed src into the private HOME, each
// text file through fill (the templates of the agent's command).
func (r *Roots) SeedHome(src string, fill func(string) string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		dst := filepath.Join(r.Home, rel)
		info, err := safefile.Info(path, d) // a Bazel runfile is the file it mirrors
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, info.Mode().Perm()|0o700)
		case !info.Mode().IsRegular():
			return fmt.Errorf("home seed %s: not a regular file", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, []byte(fill(string(b))), info.Mode().Perm())
	})
}
