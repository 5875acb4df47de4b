//go:build !linux

package cli

import (
	"fmt"
	"io"
	"runtime"
)

// reexecOffline needs Linux network namespaces.
func reexecOffline([]string, io.Reader, io.Writer, io.Writer) (int, error) {
	return 0, fmt.Errorf("%w: network namespaces are Linux only (this is %s)", errNoNamespace, runtime.GOOS)
}

// prepareNamespace is never reached off Linux: reexecOffline refuses first.
func prepareNamespace() (*observers, error) {
	return nil, fmt.Errorf("network namespaces are Linux only (this is %s)", runtime.GOOS)
}
