package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

var subreaper = sync.OnceValue(func() bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	return errno == 0
})

// becomeSubreaper makes this process the child subreaper of everything it
// starts (once per process; the setting is per process and inherited by
// no one): a descendant whose parent dies, a setsid daemon of the agent or
// of a terminal among them, is re-parented to this process instead of
// PID 1, where Escapees finds it.
func becomeSubreaper() { subreaper() }

// started are the pids the harness started (agents, terminals, the
// watchdog) and has not waited for yet, in every run of this process:
// Escapees never reaps them (their exec.Cmd.Wait does).
var started sync.Map

// Untrack forgets pid once its exec.Cmd.Wait has returned.
func Untrack(pid int) { started.Delete(pid) }

// spawning is held shared from a process's start until it is tracked, and
// exclusively by each scan of Escapees: a command that exits before it is
// tracked (a quick one in a terminal of its own session) is never taken for
// an escaped zombie and reaped from under its exec.Cmd.Wait, which would
// then have no status to report ("killed by signal unknown").
var spawning sync.RWMutex

// StartTracked runs start, which starts a process that leads a process
// group of its own, and tracks the pid it returns, with no scan of
// Escapees in between; the watchdog kills its group should the harness die
// before Forget.
func StartTracked(start func() (int, error)) error {
	spawning.RLock()
	defer spawning.RUnlock()
	pid, err := start()
	if err == nil {
		started.Store(pid, true)
		watch(pid)
	}
	return err
}

// Escapees kills, reaps and counts the processes of one run that outlived
// it outside the process groups the harness kills: children of this
// process (re-parented to it, the subreaper) whose environment names the
// run's root folder (HOME and TMPDIR point into it) or whose cwd lies in
// it. Killing one re-parents its own children here, so it looks again,
// until deadline. Zombies that left their session and that no run started
// are reaped too. It returns the command names it killed.
func Escapees(base string, deadline time.Time) []string {
	var killed []string
	for {
		found := false
		spawning.Lock()
		for _, pid := range children() {
			if _, ours := started.Load(pid); ours {
				continue
			}
			state, sid := statOf(pid)
			switch {
			case state == "Z" && sid != ownSession():
				reap(pid, deadline)
			case state != "" && state != "Z" && dying(pid):
				// Killed already (a cancelled tool's process group) and not
				// yet dead: it did not outlive anything.
				reap(pid, deadline)
				found = true
			case state != "" && state != "Z" && belongs(pid, base):
				killed = append(killed, commName(pid))
				syscall.Kill(pid, syscall.SIGKILL)
				reap(pid, deadline)
				found = true
			}
		}
		spawning.Unlock()
		if !found || time.Now().After(deadline) {
			return killed
		}
	}
}

var ownSession = sync.OnceValue(func() int {
	sid, _, _ := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	return int(sid)
})

// children lists the children of this process, from every thread's
// /proc children file.
func children() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var pids []int
	for _, t := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		for _, field := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(field); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// statOf returns a process's state letter and session id ("" when gone).
func statOf(pid int) (string, int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", 0
	}
	f := bytes.Fields(b[i+1:]) // state ppid pgrp session ...
	if len(f) < 4 {
		return "", 0
	}
	sid, _ := strconv.Atoi(string(f[3]))
	return string(f[0]), sid
}

// dying reports whether a SIGKILL is pending for the process (its thread's
// or its thread group's pending set, /proc/<pid>/status).
func dying(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, mask, ok := strings.Cut(line, ":")
		if !ok || (name != "SigPnd" && name != "ShdPnd") {
			continue
		}
		if m, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64); err == nil && m&(1<<(syscall.SIGKILL-1)) != 0 {
			return true
		}
	}
	return false
}

// belongs reports whether the process carries the run's root folder in
// its environment or works inside it.
func belongs(pid int, base string) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	if cwd, err := os.Readlink(proc + "/cwd"); err == nil && (cwd == base || strings.HasPrefix(cwd, base+"/")) {
		return true
	}
	env, err := os.ReadFile(proc + "/environ")
	return err == nil && bytes.Contains(env, []byte("="+base+"/"))
}

func commName(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if name := strings.TrimSpace(string(b)); name != "" {
		return name + " (pid " + strconv.Itoa(pid) + ")"
	}
	return "pid " + strconv.Itoa(pid)
}

// reap waits for the child pid to be a zombie and collects it, until
// deadline at most.
func reap(pid int, deadline time.Time) {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || err != nil || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
