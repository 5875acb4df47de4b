package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// insideEnv marks the test binary re-executed in the namespace; its value
// names the test whose inside half runs.
const insideEnv = "SANDBOX_TEST_INSIDE"

// inside is the namespace side of a test: Enter, probe, then print the
// attempts to stderr as "  N key" lines.
func inside(probe func() int) int {
	sb, err := Enter()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := probe()
	sb.Close()
	a := sb.Attempts()
	for _, c := range append(a.Lookups, a.Connects...) {
		fmt.Fprintf(os.Stderr, "  %6d %s\n", c.N, c.Key)
	}
	return code
}

// query builds a DNS query for name with the given id and flags.
func query(id, flags uint16, name string) []byte {
	q := binary.BigEndian.AppendUint16(nil, id)
	q = binary.BigEndian.AppendUint16(q, flags)
	q = append(q, 0, 1, 0, 0, 0, 0, 0, 0) // one question
	for _, l := range strings.Split(name, ".") {
		q = append(q, byte(len(l)))
		q = append(q, l...)
	}
	return append(q, 0, 0, 1, 0, 1) // root, QTYPE A, QCLASS IN
}

func TestRefuse(t *testing.T) {
	type answer struct {
		Name              string
		ID, Flags, QDs    uint16
		Question          []byte
		OK                bool
		AnswerRecordCount uint16
	}
	type testCase struct {
		name string
		q    []byte
		want answer
	}
	good := query(0xbeef, 0x0100, "Api.Example.COM") // RD set
	pointer := append(query(7, 0, "x")[:12], 0xc0, 0x0c, 0, 1, 0, 1)
	twoQuestions := query(7, 0, "x")
	twoQuestions[5] = 2
	cases := []testCase{
		{"query", good, answer{Name: "api.example.com", ID: 0xbeef, Flags: 0x8183, QDs: 1, Question: good[12:], OK: true}},
		{"no RD", query(1, 0, "a.b"), answer{Name: "a.b", ID: 1, Flags: 0x8083, QDs: 1, Question: query(1, 0, "a.b")[12:], OK: true}},
		{"a response", query(1, 0x8000, "a.b"), answer{}},
		{"short", good[:11], answer{}},
		{"truncated name", good[:16], answer{}},
		{"no qtype", good[:len(good)-3], answer{}},
		{"pointer in question", pointer, answer{}},
		{"two questions", twoQuestions, answer{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name, resp, ok := refuse(c.q)
			got := answer{Name: name, OK: ok}
			if ok {
				got.ID = binary.BigEndian.Uint16(resp)
				got.Flags = binary.BigEndian.Uint16(resp[2:])
				got.QDs = binary.BigEndian.Uint16(resp[4:])
				got.AnswerRecordCount = binary.BigEndian.Uint16(resp[6:])
				got.Question = resp[12:]
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("refuse (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefuserCountsLookups resolves through a refuser over UDP and TCP:
// every lookup fails as not found, and the report counts the names.
func TestRefuserCountsLookups(t *testing.T) {
	r, err := listenRefuser("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, network := range []string{"udp", "tcp"} {
		res := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, r.Addr())
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := res.LookupHost(ctx, "Update."+network+".Example")
		cancel()
		var de *net.DNSError
		if !errors.As(err, &de) || !de.IsNotFound {
			t.Errorf("%s: lookup: got %v, want a not-found DNS error", network, err)
		}
	}
	r.Close()
	want := []Count{{"update.tcp.example", 2}, {"update.udp.example", 2}} // A and AAAA
	if diff := cmp.Diff(want, r.names.sorted()); diff != "" {
		t.Errorf("lookups (-want +got):\n%s", diff)
	}
}

// TestRefuserCloseIdleConn: Close does not wait for a client that keeps a
// TCP connection open.
func TestRefuserCloseIdleConn(t *testing.T) {
	r, err := listenRefuser("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte{0}) // half a length prefix: the server is inside serveConn
	done := make(chan struct{})
	go func() { r.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close still waiting for an idle connection after 30s")
	}
}

// packet builds an IPv4 packet from 127.0.0.1 to dst with a transport
// header of proto whose destination port is port and TCP flags are flags.
func packet(proto byte, dst string, port uint16, flags byte) []byte {
	p := make([]byte, 20+20)
	p[0], p[9] = 0x45, proto
	copy(p[12:], net.ParseIP("127.0.0.1").To4())
	copy(p[16:], net.ParseIP(dst).To4())
	binary.BigEndian.PutUint16(p[22:], port)
	p[33] = flags
	return p
}

func TestAttempt(t *testing.T) {
	type testCase struct {
		name string
		pkt  []byte
		want string // "": not an attempt
	}
	fragment := packet(17, "192.0.2.1", 53, 0)
	fragment[7] = 1
	cases := []testCase{
		{"tcp syn", packet(6, "192.0.2.1", 443, 0x02), "tcp 192.0.2.1:443"},
		{"tcp syn-ack", packet(6, "192.0.2.1", 443, 0x12), ""},
		{"tcp rst", packet(6, "192.0.2.1", 443, 0x04), ""},
		{"udp", packet(17, "198.51.100.7", 53, 0), "udp 198.51.100.7:53"},
		{"loopback", packet(6, "127.0.0.1", 8080, 0x02), ""},
		{"other loopback", packet(17, "127.0.0.53", 53, 0), ""},
		{"fragment", fragment, ""},
		{"icmp", packet(1, "192.0.2.1", 0, 0), ""},
		{"short tcp", packet(6, "192.0.2.1", 443, 0x02)[:30], ""},
		{"not ipv4", append([]byte{0x60}, packet(6, "192.0.2.1", 443, 0x02)[1:]...), ""},
		{"short", []byte{0x45, 0, 0}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := attempt(c.pkt)
			if got != c.want || ok != (c.want != "") {
				t.Errorf("attempt = %q, %v; want %q", got, ok, c.want)
			}
		})
	}
}

func TestLocalHosts(t *testing.T) {
	type testCase struct {
		name, in, want string
		changed        bool
	}
	cases := []testCase{
		{"resolved", "passwd: files\nhosts:  files mdns4_minimal [NOTFOUND=return] resolve dns\n", "passwd: files\nhosts: files dns\n", true},
		{"already", "hosts:          files dns\n", "hosts:          files dns\n", false},
		{"no hosts line", "passwd: files\n", "passwd: files\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed := localHosts([]byte(c.in))
			if changed != c.changed || (changed && string(got) != c.want) {
				t.Errorf("localHosts(%q) = %q, %v; want %q, %v", c.in, got, changed, c.want, c.changed)
			}
		})
	}
}

// TestOffline re-executes this test inside a loopback-only namespace
// through Reexec and Enter; inside, offlineProbe checks what
// an agent would meet, and the report must name the lookup it tried.
func TestOffline(t *testing.T) {
	if os.Getenv(insideEnv) == "offline" {
		os.Exit(inside(offlineProbe))
	}
	var stdout, stderr bytes.Buffer
	code, err := Reexec(Config{Args: []string{os.Args[0], "-test.run=^TestOffline$"}, Stdout: &stdout, Stderr: &stderr,
		Env: append(os.Environ(), insideEnv+"=offline")})
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("no network namespace on this machine: %v", err)
	}
	if err != nil || code != 0 {
		t.Fatalf("inside the namespace: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, stdout.String(), stderr.String())
	}
	for _, want := range []string{`blocked\.example`, `tcp 192\.0\.2\.1:443`, `udp 198\.51\.100\.7:9`} {
		if !regexp.MustCompile(`(?m)^ +[1-9][0-9]* ` + want + `$`).Match(stderr.Bytes()) {
			t.Errorf("report does not name %s:\n%s", want, stderr.String())
		}
	}
}

// offlineProbe runs inside the namespace: only lo exists and is up, a
// lookup fails as not found, a TCP connect or UDP send elsewhere is refused
// at once.
func offlineProbe() int {
	var failures []string
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }

	ifs, err := net.Interfaces()
	if err != nil || len(ifs) != 1 || ifs[0].Name != "lo" || ifs[0].Flags&net.FlagUp == 0 {
		fail("interfaces: %v, %v; want lo only, up", ifs, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail("listen on loopback: %v", err)
	} else {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
		if err != nil {
			fail("dial loopback: %v", err)
		} else {
			c.Close()
		}
		ln.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_, err = net.DefaultResolver.LookupHost(ctx, "blocked.example")
	cancel()
	var de *net.DNSError
	if !errors.As(err, &de) || !de.IsNotFound {
		fail("lookup blocked.example: %v; want not found", err)
	}
	// Refused, not timed out: the error itself says it came at once.
	_, err = net.DialTimeout("tcp", "192.0.2.1:443", 10*time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		fail("dial 192.0.2.1:443: %v; want ECONNREFUSED at once", err)
	}
	if c, err := net.Dial("udp", "198.51.100.7:9"); err != nil {
		fail("udp socket: %v", err)
	} else {
		c.Write([]byte("x"))
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, syscall.ECONNREFUSED) {
			fail("udp to 198.51.100.7:9: %v; want ECONNREFUSED", err)
		}
		c.Close()
	}
	for _, f := range failures {
		fmt.Fprintln(os.Stderr, "offline probe:", f)
	}
	if len(failures) > 0 {
		return 1
	}
	return 0
}

// TestNoWayOut: a process in the namespace, root there, cannot setns back
// into the network namespace of the process that made it (as root without
// a user namespace it could, and reach host listeners).
func TestNoWayOut(t *testing.T) {
	if os.Getenv(insideEnv) == "nowayout" {
		os.Exit(inside(func() int {
			f, err := os.Open(os.Getenv("SANDBOX_TEST_HOST_NS"))
			if err != nil {
				fmt.Fprintln(os.Stderr, "open the host's namespace:", err)
				return 0 // not even opened: no way out
			}
			defer f.Close()
			runtime.LockOSThread() // a thread left in another namespace must die with the process
			if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
				fmt.Fprintln(os.Stderr, "setns:", err)
				return 0
			}
			fmt.Fprintln(os.Stderr, "setns into the host's network namespace succeeded")
			return 1
		}))
	}
	var stdout, stderr bytes.Buffer
	code, err := Reexec(Config{Args: []string{os.Args[0], "-test.run=^TestNoWayOut$"}, Stdout: &stdout, Stderr: &stderr,
		Env: append(os.Environ(), insideEnv+"=nowayout", fmt.Sprintf("SANDBOX_TEST_HOST_NS=/proc/%d/ns/net", os.Getpid()))})
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("no network namespace on this machine: %v", err)
	}
	if err != nil || code != 0 {
		t.Fatalf("inside the namespace: exit %d, %v\nstderr:\n%s", code, err, stderr.String())
	}
	t.Logf("inside: %s", stderr.String())
}

// reexec runs the named inside half of a test in a namespace and returns
// its stderr; it skips where no namespace can be made.
func reexec(t *testing.T, name string, cfg Config) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cfg.Args = []string{os.Args[0], "-test.run=^" + t.Name() + "$"}
	cfg.Stdout, cfg.Stderr = &stdout, &stderr
	cfg.Env = append(append(os.Environ(), insideEnv+"="+name), cfg.Env...)
	code, err := Reexec(cfg)
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("no network namespace on this machine: %v", err)
	}
	if err != nil || code != 0 {
		t.Fatalf("inside the namespace: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, stdout.String(), stderr.String())
	}
	return stderr.String()
}

// TestWayOut: with Config.Dial the process inside reaches a listener of
// the outside's loopback through Sandbox.Dial, and only through it: a
// plain connect to the same address meets the namespace's own loopback.
func TestWayOut(t *testing.T) {
	if os.Getenv(insideEnv) == "wayout-dial" {
		sb, err := Enter()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer sb.Close()
		addr := os.Getenv("SANDBOX_TEST_ADDR")
		if _, err := net.DialTimeout("tcp", addr, 5*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
			fmt.Fprintf(os.Stderr, "a plain connect to %s: %v; want refused\n", addr, err)
			os.Exit(1)
		}
		for range 3 { // one after another on one way out
			c, err := sb.Dial(context.Background(), "tcp", addr)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			c.Write([]byte("ping\n"))
			line, err := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if line != "pong\n" {
				fmt.Fprintf(os.Stderr, "answer %q, %v\n", line, err)
				os.Exit(1)
			}
		}
		if _, err := sb.Dial(context.Background(), "udp", addr); err == nil || !strings.Contains(err.Error(), "only TCP goes out") {
			fmt.Fprintf(os.Stderr, "a UDP dial: %v\n", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "dialled out")
		os.Exit(0)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if l, _ := bufio.NewReader(c).ReadString('\n'); l == "ping\n" {
					c.Write([]byte("pong\n"))
				}
			}()
		}
	}()
	got := reexec(t, "wayout-dial", Config{Dial: true, Env: []string{"SANDBOX_TEST_ADDR=" + ln.Addr().String()}})
	if !strings.Contains(got, "dialled out") {
		t.Errorf("inside: %s", got)
	}
}

// TestHiddenAndAlone: a hidden variable reaches the process inside but
// not its /proc/<pid>/environ; it is the namespace's init (PID 1), its
// /proc lists no process of the host, and its host name is acpsnap.
func TestHiddenAndAlone(t *testing.T) {
	if os.Getenv(insideEnv) == "hidden" {
		sb, err := Enter()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sb.Close()
		environ, _ := os.ReadFile("/proc/self/environ")
		host, _ := os.Hostname()
		pids, _ := filepath.Glob("/proc/[0-9]*")
		fmt.Fprintf(os.Stderr, "value=%s pid=%d environ-holds-it=%v host=%s outside-pid-seen=%v procs=%d\n",
			os.Getenv("SANDBOX_TEST_SECRET"), os.Getpid(), bytes.Contains(environ, []byte("s3cret")), host,
			slices.Contains(pids, "/proc/"+os.Getenv("SANDBOX_TEST_OUTSIDE")), len(pids))
		os.Exit(0)
	}
	got := reexec(t, "hidden", Config{Hidden: []string{"SANDBOX_TEST_SECRET=s3cret-0123"}, Env: []string{fmt.Sprintf("SANDBOX_TEST_OUTSIDE=%d", os.Getpid())}})
	if !strings.Contains(got, "value=s3cret-0123 pid=1 environ-holds-it=false host=acpsnap outside-pid-seen=false") {
		t.Errorf("inside: %s", got)
	}
}
