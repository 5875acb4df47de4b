package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The way out (Config.Dial): the process outside holds one end of a
// SOCK_SEQPACKET pair, the process inside the other (fd dialFD). The inside
// sends "network\x00address"; the outside dials it from its own network
// and answers "ok" with the connected socket (SCM_RIGHTS), or an error. A
// socket keeps the network namespace it was made in, so the inside then
// talks to the outside's network over it, and nothing else inside can.

// dialTimeout bounds one dial the outside makes.
const dialTimeout = 30 * time.Second

// wayOut makes the pair: the outside's end and the file the inside gets.
func wayOut() (*net.UnixConn, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: the way out: %w", err)
	}
	out := os.NewFile(uintptr(fds[0]), "sandbox-dial")
	defer out.Close()
	c, err := net.FileConn(out)
	if err != nil {
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("sandbox: the way out: %w", err)
	}
	return c.(*net.UnixConn), os.NewFile(uintptr(fds[1]), "sandbox-dial-inside"), nil
}

// serveDials answers the inside's dial requests, one at a time, until the
// inside closes its end.
func serveDials(ctl *net.UnixConn) {
	defer ctl.Close()
	buf := make([]byte, 1024)
	for {
		n, err := ctl.Read(buf)
		if err != nil || n == 0 {
			return
		}
		network, addr, _ := strings.Cut(string(buf[:n]), "\x00")
		f, err := dialFile(network, addr)
		if err != nil {
			ctl.Write([]byte("error\x00" + err.Error()))
			continue
		}
		ctl.WriteMsgUnix([]byte("ok"), unix.UnixRights(int(f.Fd())), nil)
		f.Close()
	}
}

// dialFile dials a TCP address and returns the connected socket as a file.
func dialFile(network, addr string) (*os.File, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, fmt.Errorf("network %q: only TCP goes out", network)
	}
	c, err := net.DialTimeout(network, addr, dialTimeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.(*net.TCPConn).File()
}

// Dial connects to addr from the network of the process that made the
// namespace (Config.Dial), for the run's own traffic to the live model:
// nothing else inside holds the way out. Without it, or once the outside
// has gone, it fails.
func (s *Sandbox) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if s.ctl == nil {
		return nil, errors.New("sandbox: no way out of the namespace was made (Config.Dial)")
	}
	type result struct {
		c   net.Conn
		err error
	}
	done := make(chan result, 1)
	go func() { // one exchange at a time, each read to its end: a late answer never lands on the next dial
		s.mu.Lock()
		defer s.mu.Unlock()
		c, err := s.exchange(network, addr)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.c, r.err
	case <-ctx.Done():
		go func() {
			if r := <-done; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// exchange sends one request and reads its answer.
func (s *Sandbox) exchange(network, addr string) (net.Conn, error) {
	if _, err := s.ctl.Write([]byte(network + "\x00" + addr)); err != nil {
		return nil, fmt.Errorf("sandbox: dial %s: the way out: %w", addr, err)
	}
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := s.ctl.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, fmt.Errorf("sandbox: dial %s: the way out: %w", addr, err)
	}
	if msg, ok := bytes.CutPrefix(buf[:n], []byte("error\x00")); ok {
		return nil, fmt.Errorf("sandbox: dial %s (outside the namespace): %s", addr, msg)
	}
	fd, err := receivedFD(oob[:oobn])
	if err != nil {
		return nil, fmt.Errorf("sandbox: dial %s: %w", addr, err)
	}
	f := os.NewFile(uintptr(fd), "sandbox-dialled")
	defer f.Close()
	return net.FileConn(f)
}

// receivedFD is the one descriptor an SCM_RIGHTS message carries.
func receivedFD(oob []byte) (int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("no socket in the answer (%v)", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return -1, fmt.Errorf("no socket in the answer (%v)", err)
	}
	unix.CloseOnExec(fds[0])
	return fds[0], nil
}
