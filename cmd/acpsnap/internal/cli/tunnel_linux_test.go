package cli

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestTunnelRefusesStrangers: the tunnel out of capture -offline's
// namespace serves only the child acpsnap process; anyone else (here this
// process, which is not its own child) gets a closed connection and the
// target sees nothing.
func TestTunnelRefusesStrangers(t *testing.T) {
	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	reached := make(chan struct{}, 1)
	go func() {
		if c, err := target.Accept(); err == nil {
			reached <- struct{}{}
			c.Close()
		}
	}()
	tun, err := startTunnel(target.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer tun.Close()
	c, err := net.Dial("unix", tun.path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a stranger's connection: read %d, %v; want it closed (EOF)", n, err)
	}
	select {
	case <-reached:
		t.Error("the tunnel connected a stranger to the target")
	case <-time.After(100 * time.Millisecond):
	}
}
