package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// attrs are the ways to start a process in a loopback-only network
// namespace, best first. Each makes a new user namespace with the network,
// mount, PID and UTS ones, so nothing inside holds a capability over the
// host's namespaces (root inside could otherwise setns back out), nothing
// inside sees a process outside, and every process inside dies with the
// one Reexec starts (it is their init, and it dies with its caller).
// Root's ids are mapped to themselves (it still owns its files); another
// user's id is mapped to 0 (agents then see uid 0: Claude Code, for one,
// needs IS_SANDBOX=1 there as under root).
func attrs() []*syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWUTS)
	single := &syscall.SysProcAttr{Cloneflags: flags, Pdeathsig: syscall.SIGKILL,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}}
	if os.Geteuid() != 0 {
		return []*syscall.SysProcAttr{single}
	}
	uids, uerr := identity("/proc/self/uid_map")
	gids, gerr := identity("/proc/self/gid_map")
	if uerr != nil || gerr != nil {
		return []*syscall.SysProcAttr{single}
	}
	root := &syscall.SysProcAttr{Cloneflags: flags, Pdeathsig: syscall.SIGKILL,
		UidMappings: uids, GidMappings: gids, GidMappingsEnableSetgroups: true}
	return []*syscall.SysProcAttr{root, single}
}

// identity maps every id of this user namespace (an id map file) to
// itself in the new one.
func identity(file string) ([]syscall.SysProcIDMap, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []syscall.SysProcIDMap
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s: %q", file, sc.Text())
		}
		first, err1 := strconv.Atoi(fields[0])
		size, err2 := strconv.Atoi(fields[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: %q", file, sc.Text())
		}
		out = append(out, syscall.SysProcIDMap{ContainerID: first, HostID: first, Size: size})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: empty", file)
	}
	return out, sc.Err()
}

// Reexec runs cfg.Args again in a loopback-only network namespace, with
// stdio passed through and SIGINT, SIGTERM and SIGHUP forwarded, and
// returns its exit code. The process is killed if the caller dies
// (PR_SET_PDEATHSIG). ErrUnavailable: no way to make the namespace here;
// the error says what was tried and, when a sysctl forbids user
// namespaces, which. An error also says when the process was killed by a
// signal.
func Reexec(cfg Config) (int, error) {
	var tried []string
	for _, attr := range attrs() {
		cmd := &exec.Cmd{Path: "/proc/self/exe", Args: cfg.Args, Stdin: cfg.Stdin, Stdout: cfg.Stdout, Stderr: cfg.Stderr,
			Env: cfg.Env, SysProcAttr: attr}
		h, err := handOver(cmd, cfg)
		if err != nil {
			return 0, err
		}
		if err := cmd.Start(); err != nil {
			h.abandon()
			tried = append(tried, fmt.Sprintf("%s: %v", describe(attr), err))
			continue
		}
		h.started(cfg.Hidden)
		defer h.ended()
		return waitForwarding(cmd)
	}
	return 0, fmt.Errorf("%w (%s)%s", ErrUnavailable, strings.Join(tried, "; "), userNamespaceHint())
}

// fdsVar tells the process inside which descriptors Reexec handed it: the
// pipe of Config.Hidden, then the way out of Config.Dial ("3" or "3,4").
const fdsVar = "ACPSNAP_SANDBOX_FDS"

// handover is what Reexec hands the process inside besides its command
// line, and keeps of it.
type handover struct {
	env    *os.File      // the write end of the pipe of Config.Hidden
	inside []*os.File    // the ends the process inside gets
	ctl    *net.UnixConn // the way out, the outside's end; nil: none
}

// handOver adds the descriptors and fdsVar to cmd.
func handOver(cmd *exec.Cmd, cfg Config) (*handover, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	h := &handover{env: w, inside: []*os.File{r}}
	fds := "3"
	if cfg.Dial {
		ctl, f, err := wayOut()
		if err != nil {
			h.abandon()
			return nil, err
		}
		h.ctl, h.inside, fds = ctl, append(h.inside, f), "3,4"
	}
	cmd.ExtraFiles = h.inside
	cmd.Env = append(slices.Clip(cmd.Env), fdsVar+"="+fds)
	return h, nil
}

// started closes what the process inside now holds, writes the hidden
// variables and serves the way out.
func (h *handover) started(hidden []string) {
	for _, f := range h.inside {
		f.Close()
	}
	go func() {
		h.env.Write([]byte(strings.Join(hidden, "\x00")))
		h.env.Close()
	}()
	if h.ctl != nil {
		go serveDials(h.ctl)
	}
}

// ended releases the way out once the process inside has ended.
func (h *handover) ended() {
	if h.ctl != nil {
		h.ctl.Close()
	}
}

// abandon closes everything of a process that did not start.
func (h *handover) abandon() {
	h.env.Close()
	for _, f := range h.inside {
		f.Close()
	}
	if h.ctl != nil {
		h.ctl.Close()
	}
}

// takeOver is handOver's other side, in the process inside: it sets the
// hidden variables and returns the way out (nil: none), and leaves no
// descriptor of it to an agent.
func takeOver() (*net.UnixConn, error) {
	fds := os.Getenv(fdsVar)
	if fds == "" {
		return nil, errors.New("sandbox: this process was not started by Reexec")
	}
	os.Unsetenv(fdsVar)
	env := os.NewFile(3, "sandbox-env")
	b, err := io.ReadAll(env)
	env.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox: read the hidden environment: %w", err)
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if name, value, ok := strings.Cut(kv, "="); ok {
			os.Setenv(name, value)
		}
	}
	if fds != "3,4" {
		return nil, nil
	}
	unix.CloseOnExec(4)
	f := os.NewFile(4, "sandbox-dial")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the way out: %w", err)
	}
	return c.(*net.UnixConn), nil
}

func describe(attr *syscall.SysProcAttr) string {
	if attr.GidMappingsEnableSetgroups {
		return "unshare(CLONE_NEWUSER|CLONE_NEWNET|CLONE_NEWNS|CLONE_NEWPID|CLONE_NEWUTS), ids kept"
	}
	return "unshare(CLONE_NEWUSER|CLONE_NEWNET|CLONE_NEWNS|CLONE_NEWPID|CLONE_NEWUTS), uid mapped to 0"
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
			return "; user namespaces are disabled here (" + s.hint + "): allow them"
		}
	}
	return ""
}

// waitForwarding waits for cmd, forwarding termination signals to it, and
// returns its exit code (killed by a signal: an error).
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
			if errors.As(err, &ee) && ee.ExitCode() >= 0 {
				return ee.ExitCode(), nil
			}
			if err != nil {
				return -1, fmt.Errorf("sandbox: the run in the namespace ended: %w", err)
			}
			return 0, nil
		}
	}
}

// Enter makes the fresh namespace this process runs in usable and
// watched: the hidden variables set, lo up, mounts private, a /proc of
// the namespace's own processes, the host name "acpsnap", DNS pointed at a
// responder on 127.0.0.1:53, connects anywhere refused and counted. It
// must be called by the process Reexec started, before anything else
// reads the environment.
func Enter() (*Sandbox, error) {
	ctl, err := takeOver()
	if err != nil {
		return nil, err
	}
	sb, err := enter()
	if err != nil {
		if ctl != nil {
			ctl.Close()
		}
		return nil, err
	}
	sb.ctl = ctl
	return sb, nil
}

// enter prepares and watches the namespace.
func enter() (*Sandbox, error) {
	if err := loopbackUp(); err != nil {
		return nil, fmt.Errorf("sandbox: bring lo up: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("sandbox: make mounts private: %w", err)
	}
	// The host's /proc shows every process of the machine, and a process's
	// environment to another of the same user: the namespace gets its own.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return nil, fmt.Errorf("sandbox: mount a /proc of the namespace's processes: %w", err)
	}
	if err := unix.Sethostname([]byte("acpsnap")); err != nil {
		return nil, fmt.Errorf("sandbox: set the host name: %w", err)
	}
	r, err := listenRefuser("127.0.0.1:53")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := resolveLocally(); err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	w, err := watchConnects()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return &Sandbox{dns: r, connects: w.seen, stop: w.Close}, nil
}

// loopbackUp sets IFF_UP on lo (SIOCSIFFLAGS; no ip(8) needed).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCGIFFLAGS: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCSIFFLAGS: %w", err)
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
		err = unix.Mount(f.Name(), target, "", unix.MS_BIND, "")
	}
	if err != nil {
		return fmt.Errorf("bind %s: %w", target, err)
	}
	return nil
}
