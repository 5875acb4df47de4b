package sandbox

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

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
	for _, proto := range []int{unix.IPPROTO_TCP, unix.IPPROTO_UDP} {
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

// notLoopback is a socket filter that keeps the first 256 bytes of packets
// to addresses outside 127.0.0.0/8 and drops the rest, so the run's own
// loopback traffic (the model proxy) never fills the raw sockets' queues.
var notLoopback = []bpf.Instruction{
	bpf.LoadAbsolute{Off: 16, Size: 4}, // the destination address
	bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xff000000},
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x7f000000, SkipTrue: 1},
	bpf.RetConstant{Val: 256},
	bpf.RetConstant{Val: 0},
}

// rawSocket is a raw IPv4 socket for proto whose reads time out every
// 50 ms, so its reader notices Close.
func rawSocket(proto int) (int, error) {
	raw, err := bpf.Assemble(notLoopback)
	if err != nil {
		return -1, err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return -1, err
	}
	err = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 50_000})
	if err == nil {
		err = unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]})
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// read counts the attempts fd sees until Close, and then until fd's queue
// is empty, so nothing sent before Close goes uncounted.
func (w *watcher) read(fd int) {
	defer w.wg.Done()
	defer unix.Close(fd)
	buf := make([]byte, 256) // headers are all we look at
	for {
		n, err := unix.Read(fd, buf)
		switch {
		case err == unix.EINTR:
		case err == unix.EAGAIN:
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
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	msg := binary.NativeEndian.AppendUint32(nil, uint32(unix.NLMSG_HDRLEN+unix.SizeofRtMsg+8))
	msg = binary.NativeEndian.AppendUint16(msg, unix.RTM_NEWROUTE)
	msg = binary.NativeEndian.AppendUint16(msg, unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	msg = binary.NativeEndian.AppendUint32(msg, 1) // seq
	msg = binary.NativeEndian.AppendUint32(msg, 0) // pid: the kernel fills it in
	msg = append(msg, unix.AF_INET, 0, 0, 0, unix.RT_TABLE_LOCAL, unix.RTPROT_BOOT, unix.RT_SCOPE_HOST, unix.RTN_LOCAL)
	msg = binary.NativeEndian.AppendUint32(msg, 0)                // rtm_flags
	msg = binary.NativeEndian.AppendUint16(msg, 8)                // rta_len
	msg = binary.NativeEndian.AppendUint16(msg, unix.RTA_OIF)     // rta_type
	msg = binary.NativeEndian.AppendUint32(msg, uint32(lo.Index)) // the output interface
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	return netlinkAck(buf[:n])
}

// netlinkAck reads the error code of an rtnetlink acknowledgement.
func netlinkAck(b []byte) error {
	for len(b) >= unix.NLMSG_HDRLEN {
		size := int(binary.NativeEndian.Uint32(b))
		typ := binary.NativeEndian.Uint16(b[4:])
		if size < unix.NLMSG_HDRLEN || size > len(b) {
			break
		}
		if typ == unix.NLMSG_ERROR && size >= unix.NLMSG_HDRLEN+4 {
			if code := int32(binary.NativeEndian.Uint32(b[unix.NLMSG_HDRLEN:])); code != 0 {
				return unix.Errno(-code)
			}
			return nil
		}
		next := (size + unix.NLMSG_ALIGNTO - 1) &^ (unix.NLMSG_ALIGNTO - 1)
		if next > len(b) {
			break
		}
		b = b[next:]
	}
	return fmt.Errorf("rtnetlink: no acknowledgement")
}
