//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"net"
	"runtime"
)

// Reexec needs Linux network namespaces.
func Reexec(Config) (int, error) {
	return 0, fmt.Errorf("%w: network namespaces are Linux only (this is %s)", ErrUnavailable, runtime.GOOS)
}

// Enter is never reached off Linux: Reexec refuses first.
func Enter() (*Sandbox, error) {
	return nil, fmt.Errorf("sandbox: network namespaces are Linux only (this is %s)", runtime.GOOS)
}

// Dial is never reached off Linux: Reexec refuses first.
func (s *Sandbox) Dial(context.Context, string, string) (net.Conn, error) {
	return nil, fmt.Errorf("sandbox: network namespaces are Linux only (this is %s)", runtime.GOOS)
}
