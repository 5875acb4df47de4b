package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// groupAlive reports whether process group pgid has a member that is not a
// zombie. It reads /proc, because kill(-pgid, 0) also counts zombies, and an
// orphan's zombie may never be reaped where PID 1 does not reap.
func groupAlive(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// Fields after the command name (which may hold spaces and parens):
		// state ppid pgrp ...
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 || string(f[0]) == "Z" || string(f[0]) == "X" {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err == nil && g == pgid {
			return true
		}
	}
	return false
}
