package acpsnaptest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/frontend"
)

// commandEnv marks a process started through a command's wrapper: its
// value is the command's name.
const commandEnv = "ACPSNAPTEST_COMMAND"

// commandsDir is the folder of the wrappers Main put on PATH ("": none).
var commandsDir string

// Main lets the test binary serve as named commands, as testscript.Main
// does: call it from TestMain. When the binary runs as one of commands it
// runs that function and exits with its code; otherwise it puts a wrapper
// named after each command in a temporary folder at the front of PATH, runs
// the tests and removes the folder. A corpus (or Params.Agent) then names
// the command, so a Go agent is tested without a binary built beforehand:
//
//	func TestMain(m *testing.M) {
//		acpsnaptest.Main(m, map[string]func() int{"my-agent": agentMain})
//	}
//
// The wrappers are POSIX shell scripts that re-execute the test binary.
func Main(m *testing.M, commands map[string]func() int) {
	if name := os.Getenv(commandEnv); name != "" {
		os.Unsetenv(commandEnv)
		os.Unsetenv("GORACE") // set by the wrapper, not part of the command's environment
		run, ok := commands[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "acpsnaptest: unknown command %q\n", name)
			os.Exit(2)
		}
		os.Exit(run())
	}
	os.Exit(runWithCommands(m, commands))
}

func runWithCommands(m *testing.M, commands map[string]func() int) int {
	dir, err := os.MkdirTemp("", "acpsnaptest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "acpsnaptest:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	if err := writeWrappers(dir, slices.Sorted(maps.Keys(commands))); err != nil {
		fmt.Fprintln(os.Stderr, "acpsnaptest:", err)
		return 2
	}
	commandsDir = dir + string(filepath.Separator)
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return m.Run()
}

// writeWrappers writes one executable script per name that re-executes
// this binary as that command. The race detector's one-second sleep at exit
// is turned off for the commands (the harness passes an agent no GORACE).
func writeWrappers(dir string, names []string) error {
	for _, name := range names {
		if err := writeWrapper(dir, name, name); err != nil {
			return err
		}
	}
	return nil
}

// writeWrapper writes the executable script dir/file that re-executes
// this binary with commandEnv set to command.
func writeWrapper(dir, file, command string) error {
	if file == "" || strings.ContainsAny(file, `/\`) {
		return fmt.Errorf("command name %q: want a file name", file)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("locate the test binary: %w", err)
	}
	gorace := strings.TrimSpace("atexit_sleep_ms=0 " + os.Getenv("GORACE"))
	script := fmt.Sprintf("#!/bin/sh\n%s=%s GORACE=%s exec %s \"$@\"\n",
		commandEnv, frontend.Quote(command), frontend.Quote(gorace), frontend.Quote(exe))
	return os.WriteFile(filepath.Join(dir, file), []byte(script), 0o755)
}
