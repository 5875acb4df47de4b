package agent

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// eventually polls cond every 10ms for up to 10s (a bounded poll on a
// condition, never a sleep standing in for synchronisation).
func eventually(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

// waitForPid waits until path holds a process id and returns it.
func waitForPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	ok := eventually(func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	if !ok {
		t.Fatalf("no pid in %s", path)
	}
	return pid
}

// alive reports whether pid is a running process (a zombie waiting for
// its reaper counts as dead).
func alive(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		return len(fields) > 0 && fields[0] != "Z"
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
