package cli

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
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
// mounts private, DNS pointed at a refuser on 127.0.0.1:53, connects
// anywhere refused and watched.
func prepareNamespace() (*observers, error) {
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
	w, err := watchConnects()
	if err != nil {
		r.Close()
		return nil, err
	}
	return &observers{dns: r, connects: w.seen, stop: w.Close}, nil
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

// watcher sees the connects the run attempts. With every IPv4 address
// routed to lo (a local route for 0.0.0.0/0, the "AnyIP" route), a connect
// to any address reaches the namespace's own stack and is refused at once
// (TCP RST, ICMP port unreachable) instead of failing before a packet
// exists; raw TCP and UDP sockets see the first packet of each attempt.
type watcher struct {
	wg      sync.WaitGroup
	stopped atomic.Bool
	seen    *counter
}

// watchConnects installs the local route and starts the raw sockets.
func watchConnects() (*watcher, error) {
	if err := addLocalRoute(); err != nil {
		return nil, fmt.Errorf("route every IPv4 address to lo: %w", err)
	}
	w := &watcher{seen: newCounter()}
	for _, proto := range []int{syscall.IPPROTO_TCP, syscall.IPPROTO_UDP} {
		fd, err := rawSocket(proto)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("raw socket: %w", err)
		}
		w.wg.Add(1)
		go w.read(fd)
	}
	return w, nil
}

// rawSocket is a raw IPv4 socket for proto whose reads time out every
// 50 ms, so its reader notices Close.
func rawSocket(proto int) (int, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, proto)
	if err != nil {
		return -1, err
	}
	tv := syscall.Timeval{Usec: 50_000}
	err = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	if err == nil {
		err = syscall.AttachLsf(fd, notLoopback)
	}
	if err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// notLoopback is a socket filter that keeps the first 256 bytes of packets
// to addresses outside 127.0.0.0/8 and drops the rest, so the run's own
// loopback traffic (the model proxy) never fills the raw sockets' queues.
var notLoopback = []syscall.SockFilter{
	*syscall.LsfStmt(syscall.BPF_LD|syscall.BPF_W|syscall.BPF_ABS, 16), // the destination address
	*syscall.LsfStmt(syscall.BPF_ALU|syscall.BPF_AND|syscall.BPF_K, 0xff000000),
	*syscall.LsfJump(syscall.BPF_JMP|syscall.BPF_JEQ|syscall.BPF_K, 0x7f000000, 1, 0),
	*syscall.LsfStmt(syscall.BPF_RET|syscall.BPF_K, 256),
	*syscall.LsfStmt(syscall.BPF_RET|syscall.BPF_K, 0),
}

// read counts the attempts fd sees until Close, and then until fd's queue
// is empty, so nothing sent before Close goes uncounted.
func (w *watcher) read(fd int) {
	defer w.wg.Done()
	defer syscall.Close(fd)
	buf := make([]byte, 256) // headers are all we look at
	for {
		n, err := syscall.Read(fd, buf)
		switch {
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			if w.stopped.Load() {
				return
			}
		case err != nil:
			return
		default:
			if a, ok := attempt(buf[:n]); ok {
				w.seen.add(a)
			}
		}
	}
}

// Close stops the raw sockets once their queues are read.
func (w *watcher) Close() {
	w.stopped.Store(true)
	w.wg.Wait()
}

// addLocalRoute is "ip route add local 0.0.0.0/0 dev lo table local"
// over rtnetlink.
func addLocalRoute() error {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return err
	}
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	msg := binary.NativeEndian.AppendUint32(nil, uint32(syscall.NLMSG_HDRLEN+syscall.SizeofRtMsg+8))
	msg = binary.NativeEndian.AppendUint16(msg, syscall.RTM_NEWROUTE)
	msg = binary.NativeEndian.AppendUint16(msg, syscall.NLM_F_REQUEST|syscall.NLM_F_ACK|syscall.NLM_F_CREATE|syscall.NLM_F_EXCL)
	msg = binary.NativeEndian.AppendUint32(msg, 1) // seq
	msg = binary.NativeEndian.AppendUint32(msg, 0) // pid: the kernel fills it in
	msg = append(msg, syscall.AF_INET, 0, 0, 0, syscall.RT_TABLE_LOCAL, syscall.RTPROT_BOOT, syscall.RT_SCOPE_HOST, syscall.RTN_LOCAL)
	msg = binary.NativeEndian.AppendUint32(msg, 0)                // rtm_flags
	msg = binary.NativeEndian.AppendUint16(msg, 8)                // rta_len
	msg = binary.NativeEndian.AppendUint16(msg, syscall.RTA_OIF)  // rta_type
	msg = binary.NativeEndian.AppendUint32(msg, uint32(lo.Index)) // the output interface
	if err := syscall.Sendto(fd, msg, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := syscall.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Header.Type == syscall.NLMSG_ERROR && len(m.Data) >= 4 {
			if code := int32(binary.NativeEndian.Uint32(m.Data)); code != 0 {
				return syscall.Errno(-code)
			}
			return nil
		}
	}
	return fmt.Errorf("rtnetlink: no acknowledgement")
}
