//go:build !linux

package cli

import (
	"context"
	"errors"
	"net"
)

// tunnelEnv: -offline is Linux only.
const tunnelEnv = "ACPSNAP_CAPTURE_TUNNEL"

type tunnel struct{}

func startTunnel(string) (*tunnel, error) { return nil, errors.New("capture -offline: Linux only") }
func (t *tunnel) path() string            { return "" }
func (t *tunnel) Close()                  {}

func tunnelDial(string) func(context.Context, string, string) (net.Conn, error) { return nil }
