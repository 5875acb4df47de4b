package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/acpsnap/acpsnap/cmd/acpsnap/internal/cli"
	"github.com/acpsnap/acpsnap/testagents/conformance"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
	"github.com/acpsnap/acpsnap/testagents/parallel"
	"github.com/acpsnap/acpsnap/testagents/viceagent"
)

func TestMain(m *testing.M) {
	commands := map[string]func(){
		"acpsnap":   func() { os.Exit(cli.Main(os.Args[1:])) },
		"fakeagent": fakeAgentMain,
		"viceagent": func() { os.Exit(viceagent.Main()) },
		"confagent": confAgentMain,
	}
	if commands[filepath.Base(os.Args[0])] == nil {
		parallel.PerCPU(4) // four scripts per CPU: they mostly wait
	}
	testscript.Main(m, commands)
}

// fakeAgentMain runs testagents/fakeagent with the script in the file named
// by its one argument: the harness passes an agent only an allowlisted
// environment, so scripts cannot reach fakeagent.Env through it.
func fakeAgentMain() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fakeagent SCRIPT.json")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		fmt.Fprintf(os.Stderr, "fakeagent: read script: %v (or empty)\n", err)
		os.Exit(2)
	}
	os.Setenv(fakeagent.Env, string(b))
	fakeagent.Main() // exits
}

// confAgentMain runs testagents/conformance, an HTTP agent whose behaviour
// the corpus's agent.env sets (CONF_*).
func confAgentMain() {
	os.Setenv(conformance.Env, "1")
	conformance.Main() // exits
}

// TestScripts runs one testscript per CLI behaviour from testdata/script. Each
// script starts with a copy of the bundled corpus in $WORK/snapshots.
func TestScripts(t *testing.T) {
	inMemory(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Condition:           netnsCondition,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CI", "")
			env.Setenv("GORACE", "atexit_sleep_ms=0") // race-built agents exit at once
			// $WORK/sleeper is sleep(1) under a name unique to this script,
			// so the drills' leftover-process checks (pgrep -f) cannot see
			// another run's processes.
			sleep, err := exec.LookPath("sleep")
			if err != nil {
				return err
			}
			if err := os.Symlink(sleep, filepath.Join(env.WorkDir, "sleeper")); err != nil {
				return err
			}
			examples, err := filepath.Abs("../../examples") // read only: show reads their fixtures
			if err != nil {
				return err
			}
			env.Setenv("EXAMPLES", examples)
			return copyCorpus("../../snapshots", filepath.Join(env.WorkDir, "snapshots"))
		},
	})
}

// copyCorpus copies the scenario folders of src (not the Go files) to dst.
func copyCorpus(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if !d.IsDir() && !strings.Contains(rel, string(filepath.Separator)) {
			return nil // the suite's own files
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// netnsCondition is the [netns] condition: a loopback-only network
// namespace can be made here (acpsnap probe and -offline need one), as
// root or through a user namespace.
func netnsCondition(cond string) (bool, error) {
	if cond != "netns" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	return exec.Command("unshare", "--user", "--map-root-user", "--net", "true").Run() == nil ||
		exec.Command("unshare", "--net", "true").Run() == nil, nil
}
