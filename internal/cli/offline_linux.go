package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"unsafe"
)

// namespaceAttrs are the ways to start a process in a loopback-only
// network namespace, best first: as root, new network and mount
// namespaces; otherwise (or when root is confined, as in a container) a
// new user namespace too, with the caller's ids mapped to 0 in it.
func namespaceAttrs() []*syscall.SysProcAttr {
	user := &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		Pdeathsig:                  syscall.SIGKILL,
	}
	if os.Geteuid() != 0 {
		return []*syscall.SysProcAttr{user}
	}
	root := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	return []*syscall.SysProcAttr{root, user}
}

// reexecOffline runs argv again (argv[0] names the program, for
// multi-call binaries; /proc/self/exe is what runs) in a loopback-only
// network namespace, with stdio passed through and SIGINT, SIGTERM and
// SIGHUP forwarded, and returns its exit code. errNoNamespace: no way to
// make the namespace here; the error says what was tried.
func reexecOffline(argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	var tried []string
	for _, attr := range namespaceAttrs() {
		cmd := &exec.Cmd{Path: "/proc/self/exe", Args: argv, Stdin: stdin, Stdout: stdout, Stderr: stderr,
			Env: append(os.Environ(), offlineEnv+"=1"), SysProcAttr: attr}
		err := cmd.Start()
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", describeAttr(attr), err))
			continue
		}
		return waitForwarding(cmd)
	}
	return 0, fmt.Errorf("%w (%s)%s", errNoNamespace, strings.Join(tried, "; "), userNamespaceHint())
}

func describeAttr(attr *syscall.SysProcAttr) string {
	if attr.Cloneflags&syscall.CLONE_NEWUSER != 0 {
		return "unshare(CLONE_NEWUSER|CLONE_NEWNET|CLONE_NEWNS)"
	}
	return "unshare(CLONE_NEWNET|CLONE_NEWNS) as root"
}

// userNamespaceHint names the sysctl that forbids unprivileged user
// namespaces, when one does.
func userNamespaceHint() string {
	for _, s := range []struct{ file, bad, hint string }{
		{"/proc/sys/kernel/unprivileged_userns_clone", "0", "sysctl kernel.unprivileged_userns_clone=0"},
		{"/proc/sys/user/max_user_namespaces", "0", "sysctl user.max_user_namespaces=0"},
		{"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1", "sysctl kernel.apparmor_restrict_unprivileged_userns=1"},
	} {
		if b, err := os.ReadFile(s.file); err == nil && strings.TrimSpace(string(b)) == s.bad {
			return "; user namespaces are disabled here (" + s.hint + "): run as root or allow them"
		}
	}
	return ""
}

// waitForwarding waits for cmd, forwarding termination signals to it, and
// maps its end to an exit code (killed by a signal: ExitInternal).
func waitForwarding(cmd *exec.Cmd) (int, error) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			cmd.Process.Signal(s)
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ee.ExitCode() < 0 {
					return ExitInternal, fmt.Errorf("-offline: the run in the namespace ended: %w", err)
				}
				return ee.ExitCode(), nil
			}
			if err != nil {
				return ExitInternal, fmt.Errorf("-offline: %w", err)
			}
			return ExitOK, nil
		}
	}
}

// prepareNamespace makes the fresh namespace usable and observed: lo up,
// mounts private, DNS pointed at a refuser on 127.0.0.1:53.
func prepareNamespace() (*refuser, error) {
	if err := loopbackUp(); err != nil {
		return nil, fmt.Errorf("bring lo up: %w", err)
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("make mounts private: %w", err)
	}
	r, err := listenRefuser("127.0.0.1:53")
	if err != nil {
		return nil, err
	}
	if err := resolveLocally(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// loopbackUp sets IFF_UP on lo (ioctl SIOCSIFFLAGS; no ip(8) needed).
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr [40]byte // struct ifreq: name[16], then the flags (short)
	copy(ifr[:], "lo")
	if err := ioctl(fd, syscall.SIOCGIFFLAGS, &ifr); err != nil {
		return fmt.Errorf("SIOCGIFFLAGS: %w", err)
	}
	flags := binary.NativeEndian.Uint16(ifr[16:])
	binary.NativeEndian.PutUint16(ifr[16:], flags|syscall.IFF_UP|syscall.IFF_RUNNING)
	if err := ioctl(fd, syscall.SIOCSIFFLAGS, &ifr); err != nil {
		return fmt.Errorf("SIOCSIFFLAGS: %w", err)
	}
	return nil
}

func ioctl(fd int, req uintptr, ifr *[40]byte) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	return nil
}

// resolveLocally binds, in the private mount namespace, a resolv.conf
// naming only 127.0.0.1 over /etc/resolv.conf (absent or dangling: the
// resolver's default already is 127.0.0.1), and an nsswitch.conf whose
// hosts line is "files dns", so no resolver module (systemd-resolved over
// its socket, mDNS) reaches the host's network outside the namespace.
func resolveLocally() error {
	if err := bindFile("/etc/resolv.conf", []byte("nameserver 127.0.0.1\noptions attempts:1 timeout:1\n")); err != nil {
		return err
	}
	b, err := os.ReadFile("/etc/nsswitch.conf")
	if err != nil {
		return nil // the resolver's default is files, then dns
	}
	if fixed, changed := localHosts(b); changed {
		return bindFile("/etc/nsswitch.conf", fixed)
	}
	return nil
}

// localHosts rewrites the hosts line of an nsswitch.conf to "files dns".
func localHosts(conf []byte) ([]byte, bool) {
	var out bytes.Buffer
	changed := false
	sc := bufio.NewScanner(bytes.NewReader(conf))
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) > 0 && f[0] == "hosts:" && strings.Join(f[1:], " ") != "files dns" {
			line, changed = "hosts: files dns", true
		}
		out.WriteString(line + "\n")
	}
	return out.Bytes(), changed
}

// bindFile bind-mounts a file holding content over target, when target
// exists. The source is unlinked at once: the mount keeps it alive for
// exactly as long as the namespace.
func bindFile(target string, content []byte) error {
	if _, err := os.Stat(target); err != nil {
		return nil
	}
	f, err := os.CreateTemp("", "acpsnap-offline-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(content)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syscall.Mount(f.Name(), target, "", syscall.MS_BIND, "")
	}
	if err != nil {
		return fmt.Errorf("bind %s: %w", target, err)
	}
	return nil
}
