package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHideEnviron: a process of the same (non-root) user cannot read the
// environment of acpsnap once it hid it: the agent reading
// /proc/$PPID/environ for the key gets permission denied.
func TestHideEnviron(t *testing.T) {
	switch os.Getenv("HIDE_ENVIRON_TEST") {
	case "holder": // uid nobody: hide, then let a child of the same uid try
		if err := hideEnviron(); err != nil {
			fmt.Println("hide:", err)
			os.Exit(1)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHideEnviron$")
		cmd.Env = []string{"HIDE_ENVIRON_TEST=reader", fmt.Sprintf("HIDE_ENVIRON_PID=%d", os.Getpid())}
		out, _ := cmd.CombinedOutput()
		os.Stdout.Write(out)
		os.Exit(0)
	case "reader":
		b, err := os.ReadFile("/proc/" + os.Getenv("HIDE_ENVIRON_PID") + "/environ")
		if err != nil {
			fmt.Println("read:", err)
		} else if bytes.Contains(b, []byte("SECRET_API_KEY=sk-hidden-0123456789")) {
			fmt.Println("read the key")
		}
		os.Exit(0)
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to start the holder as another user")
	}
	// The test binary, where uid nobody may run it.
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	for d := filepath.Dir(dir); d != "/" && strings.HasPrefix(d, os.TempDir()) && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	bin := filepath.Join(dir, "cli.test")
	if err := copyExe(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestHideEnviron$")
	cmd.Env = []string{"HIDE_ENVIRON_TEST=holder", "SECRET_API_KEY=sk-hidden-0123456789"}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "read: open /proc/") || !strings.Contains(string(out), "permission denied") {
		t.Errorf("the same user read acpsnap's environment, or the drill broke: %v\n%s", err, out)
	}
}

func copyExe(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}
