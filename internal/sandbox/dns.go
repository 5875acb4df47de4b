package sandbox

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"golang.org/x/net/dns/dnsmessage"
)

// refuser is a DNS server that answers every query NXDOMAIN and counts the
// names asked, over UDP and TCP on one address.
type refuser struct {
	pc net.PacketConn
	ln net.Listener
	wg sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]bool // open TCP connections, closed by Close
	closed bool

	names *counter
}

// listenRefuser starts a refuser on addr (host:port; port 0 picks one for
// UDP and uses the same number for TCP, another one when another process
// holds that number for TCP).
func listenRefuser(addr string) (*refuser, error) {
	pc, ln, err := listenBoth(addr)
	for try := 1; err != nil && strings.HasSuffix(addr, ":0") && try < 20; try++ {
		pc, ln, err = listenBoth(addr)
	}
	if err != nil {
		return nil, fmt.Errorf("dns responder: %w", err)
	}
	r := &refuser{pc: pc, ln: ln, conns: map[net.Conn]bool{}, names: newCounter()}
	r.wg.Add(2)
	go r.serveUDP()
	go r.serveTCP()
	return r, nil
}

// listenBoth listens on addr for UDP, and on the UDP port's number for TCP.
func listenBoth(addr string) (net.PacketConn, net.Listener, error) {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", pc.LocalAddr().String())
	if err != nil {
		pc.Close()
		return nil, nil, err
	}
	return pc, ln, nil
}

// Addr is the address the refuser listens on.
func (r *refuser) Addr() string { return r.pc.LocalAddr().String() }

// Close stops the refuser, open connections included, and waits for its
// loops.
func (r *refuser) Close() {
	r.pc.Close()
	r.ln.Close()
	r.mu.Lock()
	r.closed = true
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// track records an open connection (false: the refuser is closed).
func (r *refuser) track(c net.Conn, open bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !open {
		delete(r.conns, c)
		return false
	}
	if r.closed {
		return false
	}
	r.conns[c] = true
	return true
}

func (r *refuser) serveUDP() {
	defer r.wg.Done()
	buf := make([]byte, 65535)
	for {
		n, from, err := r.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if resp := r.answer(buf[:n]); resp != nil {
			r.pc.WriteTo(resp, from)
		}
	}
}

func (r *refuser) serveTCP() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		if !r.track(c, true) {
			c.Close()
			return
		}
		r.wg.Add(1)
		go r.serveConn(c)
	}
}

// serveConn answers the length-prefixed queries of one TCP connection.
func (r *refuser) serveConn(c net.Conn) {
	defer r.wg.Done()
	defer r.track(c, false)
	defer c.Close()
	var size [2]byte
	for {
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		q := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := io.ReadFull(c, q); err != nil {
			return
		}
		resp := r.answer(q)
		if resp == nil {
			return
		}
		c.Write(binary.BigEndian.AppendUint16(nil, uint16(len(resp))))
		c.Write(resp)
	}
}

// answer counts the name q asks for and returns the NXDOMAIN answer (nil
// for a packet that is not a query).
func (r *refuser) answer(q []byte) []byte {
	name, resp, ok := refuse(q)
	if !ok {
		return nil
	}
	r.names.add(name)
	return resp
}

// refuse parses a DNS query and builds its NXDOMAIN answer: the query's
// id, opcode, RD bit and question, QR and RA set, no records. The name is
// returned lowercased, without the final dot. ok is false for anything
// that is not a one-question query.
func refuse(q []byte) (name string, resp []byte, ok bool) {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil || h.Response {
		return "", nil, false
	}
	qs, err := p.AllQuestions()
	if err != nil || len(qs) != 1 {
		return "", nil, false
	}
	b := dnsmessage.NewBuilder(make([]byte, 0, len(q)), dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode,
		RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: dnsmessage.RCodeNameError})
	if b.StartQuestions() != nil || b.Question(qs[0]) != nil {
		return "", nil, false
	}
	if resp, err = b.Finish(); err != nil {
		return "", nil, false
	}
	return strings.ToLower(strings.TrimSuffix(qs[0].Name.String(), ".")), resp, true
}
