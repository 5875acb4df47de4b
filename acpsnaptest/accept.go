package acpsnaptest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/acpsnap/acpsnap/internal/report"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/frontend"
)

// commandLine builds the go test commands that rerun one scenario of a
// test, pasted at the module root.
type commandLine struct {
	pkg  string   // the package as go test takes it: "./path/to/pkg" or "."
	test []string // the elements of the calling test's name (t.Name() split at "/")
	dir  string   // the corpus folder, relative to the module root ("pkg/testdata/acp")
}

func newCommandLine(testName, dir string) commandLine {
	pkg := packagePath()
	return commandLine{pkg: pkg, test: strings.Split(testName, "/"), dir: filepath.ToSlash(filepath.Join(pkg, dir))}
}

// settle is the acpsnap command (review, accept, reject) that acts on the
// corpus's pending files, pasted at the module root.
func (c commandLine) settle(cmd string) string {
	return "acpsnap " + cmd + " -dir " + frontend.Quote(c.dir)
}

// pattern is the -run pattern that selects scenario name and nothing else
// of the calling test.
func (c commandLine) pattern(name string) string {
	return c.patternOf("^" + regexp.QuoteMeta(name) + "$")
}

// patternOf is the -run pattern of the calling test's subtests matching
// sub (a pattern of scenario names).
func (c commandLine) patternOf(sub string) string {
	parts := make([]string, 0, len(c.test)+1)
	for _, p := range c.test {
		parts = append(parts, regexp.QuoteMeta(p))
	}
	return strings.Join(append(parts, sub), "/")
}

// flagForm is the command with the writing flag: go test ./pkg -run
// 'TestX/^name$' -args -acpsnap.update.
func (c commandLine) flagForm(name string, mode check.Mode) string {
	return fmt.Sprintf("go test %s -run %s -args -acpsnap.%s", c.pkg, frontend.Quote(c.pattern(name)), mode)
}

// groupForm is flagForm for the scenarios one command of a shared
// change accepts.
func (c commandLine) groupForm(a report.Command) string {
	return fmt.Sprintf("go test %s -run %s -args -acpsnap.%s", c.pkg, frontend.Quote(c.patternOf(a.Pattern)), a.Mode)
}

// envForm is the same with ACPSNAP_WRITE, for tools that cannot pass flags.
func (c commandLine) envForm(name string, mode check.Mode) string {
	return fmt.Sprintf("%s=%s go test %s -run %s", WriteEnv, mode, c.pkg, frontend.Quote(c.pattern(name)))
}

// accept is the two lines that end a failure: both forms of the command
// that writes what mode writes.
func (c commandLine) accept(verb, name string, mode check.Mode) string {
	return fmt.Sprintf("%s: %s\n%*sor: %s", verb, c.flagForm(name, mode), len(verb)-2, "", c.envForm(name, mode))
}

// packagePath is the current folder (go test runs a package's tests in its
// folder) relative to the module root, in the form go test takes.
func packagePath() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return "."
	}
	rel, err := filepath.Rel(root, wd)
	if err != nil || rel == "." {
		return "."
	}
	return "./" + filepath.ToSlash(rel)
}

// moduleRoot is the nearest folder at or above dir holding a go.mod.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above " + dir)
		}
	}
}
