package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// tunnelEnv names, inside the namespace of capture -offline, the socket
// through which the proxy reaches the live model.
const tunnelEnv = "ACPSNAP_CAPTURE_TUNNEL"

// tunnel is capture -offline's one way out of the network namespace: a
// Unix socket outside it that connects each caller to the live model's
// address, and nothing else. Only the acpsnap process inside the
// namespace (a child of this one) may use it: the agent and its children,
// which could reach the socket file, are refused.
type tunnel struct {
	dir, target string
	ln          net.Listener
}

// startTunnel listens on a socket in a private folder for connections to
// target (host:port).
func startTunnel(target string) (*tunnel, error) {
	dir, err := os.MkdirTemp("", "acpsnap-tunnel-")
	if err != nil {
		return nil, fmt.Errorf("capture -offline: %w", err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "model.sock"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("capture -offline: %w", err)
	}
	t := &tunnel{dir: dir, target: target, ln: ln}
	go t.serve()
	return t, nil
}

func (t *tunnel) path() string { return t.ln.Addr().String() }

// Close stops listening and removes the socket's folder.
func (t *tunnel) Close() {
	t.ln.Close()
	os.RemoveAll(t.dir)
}

func (t *tunnel) serve() {
	for {
		c, err := t.ln.Accept()
		if err != nil {
			return
		}
		go t.pass(c.(*net.UnixConn))
	}
}

// pass connects one caller, this process's child, to the target.
func (t *tunnel) pass(c *net.UnixConn) {
	defer c.Close()
	if !ownChild(c) {
		return
	}
	up, err := net.DialTimeout("tcp", t.target, 30*time.Second)
	if err != nil {
		return // the proxy reports the broken connection
	}
	defer up.Close()
	go func() {
		io.Copy(up, c)
		up.(*net.TCPConn).CloseWrite()
	}()
	io.Copy(c, up)
}

// ownChild reports whether the peer of c is a child of this process.
func ownChild(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	raw.Control(func(fd uintptr) { cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) })
	if err != nil || cred == nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(int(cred.Pid)) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ppid …: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	var state string
	var ppid int
	if i < 0 || func() error { _, err := fmt.Sscan(string(stat[i+1:]), &state, &ppid); return err }() != nil {
		return false
	}
	return ppid == os.Getpid()
}

// tunnelDial is the dialer of the proxy inside the namespace: every
// connection goes through the tunnel at path, whatever the address.
func tunnelDial(path string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
}
