package harvest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestPlantedSessionFiles: what the agent plants at the MCP proxy's report
// path or at a cassette's (a FIFO, a link to /dev/zero or to a file outside)
// is refused with its path: no hang, no endless read, no outside file
// copied into the corpus.
func TestPlantedSessionFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plants := map[string]func(p string) error{
		"fifo":         func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"/dev/zero":    func(p string) error { return os.Symlink("/dev/zero", p) },
		"outside link": func(p string) error { return os.Symlink(outside, p) },
	}
	for kind, plant := range plants {
		t.Run(kind, func(t *testing.T) {
			sessions := t.TempDir()
			report := filepath.Join(sessions, "mcp.echo.report.json")
			tools := filepath.Join(sessions, scenario.ToolCassetteFile)
			for _, p := range []string{report, tools} {
				if err := plant(p); err != nil {
					t.Fatal(err)
				}
			}
			if err := MCPReport(report); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("report: err = %v, want not a regular file", err)
			}
			if got, err := Cassettes(sessions); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("harvest: %d cassettes, err = %v; want not a regular file", len(got), err)
			}
		})
	}
}
