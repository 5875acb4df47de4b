package proc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// groupAlive reports whether process group pgid has a member that is not a
// zombie. kill(-pgid, 0) answers ESRCH when the group has no member at all,
// which is the common case and costs one system call. Otherwise it reads
// /proc, because kill also counts zombies, and an orphan's zombie may never
// be reaped where PID 1 does not reap. *member is the pid last found alive
// (0: none): it is looked at first, so that polling a group while one
// member outlives the agent reads one stat file, not all of /proc.
func groupAlive(pgid int, member *int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if *member > 0 && memberAlive("/proc/"+strconv.Itoa(*member)+"/stat", pgid) {
		return true
	}
	*member = 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if name := e.Name(); name[0] >= '0' && name[0] <= '9' && memberAlive("/proc/"+name+"/stat", pgid) {
			*member, _ = strconv.Atoi(name)
			return true
		}
	}
	return false
}

// memberAlive reports whether the /proc stat file describes a live (not
// zombie) process of group pgid.
func memberAlive(stat string, pgid int) bool {
	b, err := os.ReadFile(stat)
	if err != nil {
		return false
	}
	// Fields after the command name (which may hold spaces and parens):
	// state ppid pgrp ...
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || string(f[0]) == "Z" || string(f[0]) == "X" {
		return false
	}
	g, err := strconv.Atoi(string(f[2]))
	return err == nil && g == pgid
}
