package replay

import (
	"net/http"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/internal/wire/sse"
	"github.com/acpsnap/acpsnap/model"
)

// ModelStopFormat is the error text of a finish chunk for a model-side stop
// that has no finish reason of its own; see wire.ModelStopFormat.
const ModelStopFormat = wire.ModelStopFormat

// ModelStopReason returns the wire reason of a model-side error finish
// written with ModelStopFormat; see wire.ModelStopReason.
func ModelStopReason(c model.Chunk) (string, bool) { return wire.ModelStopReason(c) }

// Dialects lists the dialects a Server speaks, as ServerConfig.Dialect
// names them.
var Dialects = dialect.Names()

// lookupDialect returns the dialect named name ("": dialect.Default).
func lookupDialect(name string) (*dialect.Dialect, error) {
	if name == "" {
		return dialect.Default, nil
	}
	return dialect.Lookup(name)
}

// writeError answers a request with the dialect's error status and body.
func writeError(d *dialect.Dialect, w http.ResponseWriter, code, msg string) {
	status, body := d.Codec.ErrorBody(code, msg)
	writeBody(w, status, body)
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// stream writes events to w, flushing each one as the dialect's server
// would; it stops at the first write error (the client went away).
type stream struct {
	w     http.ResponseWriter
	flush func()
}

func newStream(w http.ResponseWriter) *stream {
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &stream{w: w, flush: flush}
}

func (s *stream) send(events []sse.Event) error {
	for _, ev := range events {
		if _, err := s.w.Write(ev.Bytes()); err != nil {
			return err
		}
		s.flush()
	}
	return nil
}
