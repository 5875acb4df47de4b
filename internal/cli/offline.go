package cli

// run -offline: the whole run in a loopback-only network namespace.
//
// The acpsnap process re-executes itself in a new network namespace (and a
// private mount namespace): as root directly, otherwise inside a new user
// namespace that maps the caller's uid and gid to 0, where the kernel
// allows unprivileged user namespaces (agents then see uid 0: Claude Code,
// for one, needs IS_SANDBOX=1 there as under root). Inside, only lo
// exists; it is brought up so the harness's 127.0.0.1 servers work.
//
// An outbound attempt must fail at once, never hang, and be reported.
// Name lookups are what agents try first (update checks, telemetry,
// blocklists), so /etc/resolv.conf is replaced, in the private mount
// namespace only, by one naming 127.0.0.1, where a small DNS responder
// answers every query NXDOMAIN and counts the names asked. Every IPv4
// address is routed to lo, where nothing listens, so a connect to a
// literal address is refused at once (RST, ICMP port unreachable) and raw
// sockets count its first packet; IPv6 beyond ::1 is unreachable
// (ENETUNREACH). When the run ends the names and addresses are printed to
// stderr, sorted, with their counts.
//
// The namespace code is Linux only (offline_linux.go); elsewhere -offline
// is a usage error.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
)

// offlineEnv marks the re-executed acpsnap that runs inside the namespace.
const offlineEnv = "ACPSNAP_OFFLINE_INSIDE"

// errNoNamespace says that no loopback-only network namespace can be made
// on this machine (neither as root nor through a user namespace).
var errNoNamespace = errors.New("-offline: cannot create a network namespace")

// offline runs inner, the whole run, in a loopback-only network namespace.
// Outside the namespace it re-executes argv (the process's own command
// line, os.Args) inside a new one and returns the exit code of that
// process; inside, it prepares the namespace, runs inner and reports the
// outbound attempts the run made.
func (e *env) offline(argv []string, inner func() int) int {
	return e.offlineThen(argv, inner, func(o *observers, code int) int {
		o.report(e.stderr)
		return code
	})
}

// offlineThen is offline with what happens after inner in the namespace:
// then gets the observers, stopped, and inner's exit code, and returns
// the exit code.
func (e *env) offlineThen(argv []string, inner func() int, then func(o *observers, code int) int) int {
	if os.Getenv(offlineEnv) != "" {
		return e.insideOffline(inner, then)
	}
	code, err := reexecOffline(argv, e.stdin, e.stdout, e.stderr)
	if errors.Is(err, errNoNamespace) {
		return e.exit(&usageError{err.Error()})
	}
	if err != nil {
		return e.exit(err)
	}
	return code
}

// insideOffline is the namespace side: namespace prepared, inner run,
// the observers stopped and handed to then.
func (e *env) insideOffline(inner func() int, then func(o *observers, code int) int) int {
	os.Unsetenv(offlineEnv)
	o, err := prepareNamespace()
	if err != nil {
		return e.exit(fmt.Errorf("-offline: %w", err))
	}
	code := inner()
	o.Close()
	return then(o, code)
}

// observers watch the namespace: the DNS refuser counts the names asked,
// the connect watcher (nil: none) the addresses tried.
type observers struct {
	dns      *refuser
	connects *counter
	stop     func() // stops the connect watcher
}

// Close stops both observers.
func (o *observers) Close() {
	o.dns.Close()
	if o.stop != nil {
		o.stop()
	}
}

// report prints the outbound attempts of the run: names looked up and
// addresses connected to, sorted, counted (a name asked for A and AAAA
// counts twice).
func (o *observers) report(w io.Writer) {
	names := o.dns.names.sorted()
	var addrs []count
	if o.connects != nil {
		addrs = o.connects.sorted()
	}
	if len(names) == 0 && len(addrs) == 0 {
		fmt.Fprintln(w, "acpsnap: offline: no outbound attempts")
		return
	}
	fmt.Fprintln(w, "acpsnap: offline: outbound attempts, all refused:")
	for _, part := range []struct {
		title string
		cs    []count
	}{{"lookups (queries, name)", names}, {"connects (attempts, address)", addrs}} {
		if len(part.cs) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s:\n", part.title)
		for _, c := range part.cs {
			fmt.Fprintf(w, "  %6d %s\n", c.N, c.Key)
		}
	}
}

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
// UDP and uses the same number for TCP).
func listenRefuser(addr string) (*refuser, error) {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("dns responder: %w", err)
	}
	ln, err := net.Listen("tcp", pc.LocalAddr().String())
	if err != nil {
		pc.Close()
		return nil, fmt.Errorf("dns responder: %w", err)
	}
	r := &refuser{pc: pc, ln: ln, conns: map[net.Conn]bool{}, names: newCounter()}
	r.wg.Add(2)
	go r.serveUDP()
	go r.serveTCP()
	return r, nil
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

// refuse parses a DNS query (RFC 1035 §4.1) and builds its NXDOMAIN
// answer: the query's id, opcode, RD bit and question, QR and RA set,
// RCODE 3, no records. The name is returned lowercased, without the final
// dot. ok is false for anything that is not a one-question query.
func refuse(q []byte) (name string, resp []byte, ok bool) {
	if len(q) < 12 || q[2]&0x80 != 0 || binary.BigEndian.Uint16(q[4:]) != 1 {
		return "", nil, false
	}
	var labels []string
	i := 12
	for {
		if i >= len(q) {
			return "", nil, false
		}
		l := int(q[i])
		if l == 0 {
			break
		}
		if l > 63 || i+1+l > len(q) { // compression pointers have no place in a question
			return "", nil, false
		}
		labels = append(labels, strings.ToLower(string(q[i+1:i+1+l])))
		i += 1 + l
	}
	end := i + 1 + 4 // the root label, QTYPE, QCLASS
	if end > len(q) {
		return "", nil, false
	}
	resp = make([]byte, 12, end)
	copy(resp, q[:2])
	flags := binary.BigEndian.Uint16(q[2:])
	binary.BigEndian.PutUint16(resp[2:], 0x8000|flags&0x7900|0x0080|3)
	binary.BigEndian.PutUint16(resp[4:], 1)
	resp = append(resp, q[12:end]...)
	return strings.Join(labels, "."), resp, true
}

// counter counts strings; safe for concurrent use.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func newCounter() *counter { return &counter{n: map[string]int{}} }

func (c *counter) add(key string) {
	c.mu.Lock()
	c.n[key]++
	c.mu.Unlock()
}

// count is one counted string.
type count struct {
	Key string
	N   int
}

// sorted is what was counted, sorted by key.
func (c *counter) sorted() []count {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]count, 0, len(c.n))
	for k, n := range c.n {
		out = append(out, count{k, n})
	}
	slices.SortFunc(out, func(a, b count) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// attempt reads the start of an outbound connect from an IPv4 packet: a
// TCP SYN (without ACK) or any UDP datagram, to an address outside
// 127.0.0.0/8, as "tcp 192.0.2.1:443". ok is false for anything else
// (loopback traffic, replies, fragments, other protocols, short packets).
func attempt(pkt []byte) (string, bool) {
	if len(pkt) < 20 || pkt[0]>>4 != 4 {
		return "", false
	}
	ihl := int(pkt[0]&0x0f) * 4
	dst := net.IP(pkt[16:20])
	if ihl < 20 || dst.IsLoopback() || binary.BigEndian.Uint16(pkt[6:])&0x1fff != 0 {
		return "", false
	}
	switch pkt[9] {
	case 6: // TCP
		if len(pkt) < ihl+14 || pkt[ihl+13]&0x12 != 0x02 {
			return "", false
		}
		return fmt.Sprintf("tcp %s:%d", dst, binary.BigEndian.Uint16(pkt[ihl+2:])), true
	case 17: // UDP
		if len(pkt) < ihl+4 {
			return "", false
		}
		return fmt.Sprintf("udp %s:%d", dst, binary.BigEndian.Uint16(pkt[ihl+2:])), true
	}
	return "", false
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
