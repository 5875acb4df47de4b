package proc

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestEscapees: a process of the run that left the agent's process group
// (setsid) is found by its environment, killed and reaped.
func TestEscapees(t *testing.T) {
	if !subreaper() {
		t.Skip("no child subreaper on this machine")
	}
	base := t.TempDir()
	a, err := Start([]string{"sh", "-c", `setsid sleep 30 & cat >/dev/null`}, base, []string{"PATH=/usr/bin:/bin", "HOME=" + base + "/home"}, 200*time.Millisecond, false, func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, a.SDK())
	if how, _ := a.Shutdown(time.Second); how != ExitedOnEOF {
		t.Fatalf("Shutdown = %s", how)
	}
	killed := Escapees(base, time.Now().Add(5*time.Second))
	if len(killed) != 1 || !strings.HasPrefix(killed[0], "sleep (pid ") {
		t.Errorf("Escapees = %q, want the one sleep", killed)
	}
}
