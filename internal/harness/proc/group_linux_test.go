package proc

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestGroupAlive: a group is alive while a member lives, the member found
// is remembered and looked at first, a hint that names a process of
// another group is dropped for a scan, and a group whose members are all
// gone (or zombies) is not alive.
func TestGroupAlive(t *testing.T) {
	leader := exec.Command("sleep", "30")
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := leader.Process.Pid
	member := exec.Command("sleep", "30")
	member.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if err := member.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL); leader.Wait(); member.Wait() })

	var hint int
	if !groupAlive(pgid, &hint) || hint == 0 {
		t.Fatalf("groupAlive = false or no member remembered (%d) with two members", hint)
	}
	leader.Process.Kill() // a zombie until waited for: no member
	waitZombie(t, leader.Process.Pid, pgid)
	hint = leader.Process.Pid
	if !groupAlive(pgid, &hint) || hint != member.Process.Pid {
		t.Fatalf("with the leader a zombie, groupAlive remembered %d, want the member %d", hint, member.Process.Pid)
	}
	other := exec.Command("sleep", "30") // alive, in a group of its own
	other.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	hint = other.Process.Pid
	if !groupAlive(pgid, &hint) || hint != member.Process.Pid {
		t.Fatalf("a hint in another group: remembered %d, want the member %d", hint, member.Process.Pid)
	}
	member.Process.Kill()
	waitZombie(t, member.Process.Pid, pgid)
	if groupAlive(pgid, &hint) {
		t.Fatal("groupAlive = true with only a zombie left")
	}
	if hint != 0 {
		t.Errorf("a dead group left the hint %d", hint)
	}
	leader.Wait()
	if groupAlive(pgid, &hint) {
		t.Fatal("groupAlive = true for an empty group")
	}
}

// waitZombie waits until the killed process pid of group pgid is a zombie.
func waitZombie(t *testing.T, pid, pgid int) {
	t.Helper()
	stat := "/proc/" + strconv.Itoa(pid) + "/stat"
	for deadline := time.Now().Add(5 * time.Second); memberAlive(stat, pgid); {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still alive 5s after SIGKILL", pid)
		}
		time.Sleep(time.Millisecond)
	}
}
