package proxy

import (
	"slices"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
)

// ErrorHeader marks every answer the proxy makes itself (a drift, an
// override without a body, an unreachable upstream); its value says which.
// The body is the dialect's error body, its message starting "acpsnap: ".
const ErrorHeader = "X-Acpsnap-Error"

// ownError is the body of one of the proxy's own answers with status.
func (p *Proxy) ownError(status int, msg string) []byte {
	_, b := p.dialect.Codec.ErrorBody(wire.Code(status), "acpsnap: "+msg)
	return b
}

// secretHeaders never travel upstream from the agent and are never kept.
var secretHeaders = map[string]bool{
	"authorization": true, "x-api-key": true, "api-key": true, "proxy-authorization": true,
	"cookie": true, "x-goog-api-key": true,
}

// hopHeaders are per-connection headers that a proxy does not forward;
// content-length and accept-encoding are the transport's to set (it asks
// for gzip itself and hands back the body decoded).
var hopHeaders = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true, "te": true, "trailer": true,
	"transfer-encoding": true, "upgrade": true, "host": true, "content-length": true,
	"accept-encoding": true,
}

// DefaultRequestHeaders and DefaultResponseHeaders are the headers kept
// with every exchange (lower case); Config adds to them. The request's
// are content-type and every dialect's own (dialect.Dialect.RequestHeaders).
var (
	DefaultRequestHeaders  = requestHeaders()
	DefaultResponseHeaders = []string{"content-type", "retry-after", "retry-after-ms", "x-should-retry"} // what SDKs retry by
)

func requestHeaders() []string {
	hs := []string{"content-type"}
	for _, d := range dialect.Table {
		for _, h := range d.RequestHeaders {
			if !slices.Contains(hs, h) {
				hs = append(hs, h)
			}
		}
	}
	return hs
}
