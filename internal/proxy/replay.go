package proxy

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/wire/sse"
)

// replay answers one request from the recording: the next unconsumed
// exchange with the same fingerprint, or a drift.
func (p *Proxy) replay(w http.ResponseWriter, r *http.Request, path string, arrival int) {
	q, err := p.readRequest(r, path)
	if err == nil {
		q, err = p.normalizeRequest(q)
	}
	if err != nil {
		p.fail("request %d: %v", arrival, err)
		status, kind := http.StatusBadRequest, "normalize"
		if errors.Is(err, errTooLarge) {
			status, kind = http.StatusRequestEntityTooLarge, "request"
		}
		p.refuseWith(w, &httplog.Exchange{Request: q}, status, kind, err.Error())
		return
	}
	p.mu.Lock()
	idx, q := p.match(q)
	p.mu.Unlock()
	if idx < 0 {
		p.drift(w, q, p.canonicalOf(q), arrival)
		return
	}
	call := idx + 1
	x := &httplog.Exchange{Request: q}
	p.mu.Lock()
	p.kept[idx] = x
	p.served++
	p.mu.Unlock()
	pt := p.cfg.Overrides.find(call)
	if pt != nil && pt.Status != 0 {
		p.answerStatus(w, x, pt)
		return
	}
	p.serveRecorded(w, r, call, x, p.cfg.Exchanges[idx].Response, pt)
}

// serveRecorded writes a recorded response, event by event, cut where pt
// says (a non-streamed body counts as one event).
func (p *Proxy) serveRecorded(w http.ResponseWriter, r *http.Request, call int, x *httplog.Exchange, rec httplog.Response, pt *Patch) {
	seen := httplog.Response{Status: rec.Status, Header: rec.Header, Stream: rec.Stream}
	for k, v := range rec.Header {
		w.Header().Set(k, v)
	}
	if rec.Stream && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	limit := pt.after()
	if !rec.Stream && limit == 0 && pt.DisconnectAfter == 0 {
		seen.End = httplog.EndDisconnect
		p.setResponse(x, seen)
		panic(http.ErrAbortHandler) // before the status: the agent sees a broken connection
	}
	// What is served is the recording whatever the client does with the
	// connection meanwhile: one that closes on the status line, reads
	// slowly or has left gets the same writes (failing once it is gone),
	// so the exchange kept never depends on when it left. Only a recorded
	// cancel or a hang waits for it to leave.
	w.WriteHeader(rec.Status)
	events := rec.Events
	if rec.Stream {
		flush(w) // the headers now: a stream may stall before its first event
	} else {
		events = []httplog.SSEEvent{{Data: rec.Body}}
	}
	var sent [][]byte // the data of the events served, as served
	for i, e := range events {
		if i == limit {
			break
		}
		if !rec.Stream {
			w.Write(p.expand(rec.Body))
			seen.Body = rec.Body
			continue
		}
		data := p.expand(e.Data)
		writeEvent(w, e, data)
		seen.Events, sent = append(seen.Events, e), append(sent, data)
	}
	if limit < 0 || limit > len(events) {
		if rec.End == "" {
			p.setResponse(x, seen)
			return
		}
		if rec.End == httplog.EndCancel {
			// the agent went away when it was recorded: wait for it to
			// go away again, and say so the same way
			seen.End = httplog.EndHang
			select {
			case <-r.Context().Done():
				seen.End = httplog.EndCancel
			case <-p.done:
			}
			p.setResponse(x, seen)
			return
		}
		// the recording itself ended early: end the same way
		pt = &Patch{Call: call, DisconnectAfter: -1, HangAfter: len(events)}
		if rec.End == httplog.EndDisconnect {
			pt.DisconnectAfter, pt.HangAfter = len(events), -1
		}
	}
	seen.End = p.cut(r, call, pt, sent)
	p.setResponse(x, seen)
	if seen.End == httplog.EndDisconnect {
		panic(http.ErrAbortHandler)
	}
}

// cut ends a stream where a patch says: it returns EndDisconnect for the
// caller to abort the connection, or waits (a hang) until the client
// gives up or the proxy closes. sent is the data of the stream events the
// client got, for OnHang.
func (p *Proxy) cut(r *http.Request, call int, pt *Patch, sent [][]byte) string {
	if pt.DisconnectAfter >= 0 {
		return httplog.EndDisconnect
	}
	if p.cfg.OnHang != nil {
		go p.cfg.OnHang(call, sent)
	}
	select {
	case <-r.Context().Done():
	case <-p.done:
	}
	return httplog.EndHang
}

// answerStatus answers a status patch: its status, headers and body (a
// dialect error body when it has none).
func (p *Proxy) answerStatus(w http.ResponseWriter, x *httplog.Exchange, pt *Patch) {
	body := pt.Body
	h := map[string]string{"content-type": "application/json"}
	if body == nil {
		body = p.ownError(pt.Status, fmt.Sprintf("override: call %d answers %d", pt.Call, pt.Status))
		h[strings.ToLower(ErrorHeader)] = "override"
	}
	for k, v := range pt.Header {
		h[k] = v
	}
	for k, v := range h {
		w.Header().Set(k, v)
	}
	w.WriteHeader(pt.Status)
	w.Write(p.expand(body))
	p.setResponse(x, httplog.Response{Status: pt.Status, Header: h, Body: body})
}

// refuse answers a non-retryable 400 in the dialect's error shape,
// marked as acpsnap's own (ErrorHeader: kind), and keeps the exchange.
func (p *Proxy) refuse(w http.ResponseWriter, x *httplog.Exchange, kind, msg string) {
	p.refuseWith(w, x, http.StatusBadRequest, kind, msg)
}

// refuseWith is refuse with another status.
func (p *Proxy) refuseWith(w http.ResponseWriter, x *httplog.Exchange, status int, kind, msg string) {
	x.Response = p.ownAnswer(w, status, kind, msg)
	p.mu.Lock()
	p.extra = append(p.extra, x)
	p.mu.Unlock()
}

// ownAnswer writes one of the proxy's own error answers, marked final for
// the agent's SDK ("x-should-retry: false", which both SDK families
// honour), and returns it as kept.
func (p *Proxy) ownAnswer(w http.ResponseWriter, status int, kind, msg string) httplog.Response {
	body := p.ownError(status, msg)
	h := map[string]string{"content-type": "application/json", "x-should-retry": "false", strings.ToLower(ErrorHeader): kind}
	for k, v := range h {
		w.Header().Set(k, v)
	}
	w.WriteHeader(status)
	w.Write(body)
	return httplog.Response{Status: status, Header: h, Body: body}
}

func (p *Proxy) setResponse(x *httplog.Exchange, r httplog.Response) {
	p.mu.Lock()
	x.Response = r
	p.mu.Unlock()
}

// writeEvent writes one SSE event (its data split into lines at "\n")
// and flushes.
func writeEvent(w http.ResponseWriter, e httplog.SSEEvent, data []byte) {
	ev := sse.Event{End: "\n"}
	if e.Event != "" {
		ev.Lines = append(ev.Lines, sse.Line{Text: "event: " + e.Event, End: "\n"})
	}
	if e.ID != "" {
		ev.Lines = append(ev.Lines, sse.Line{Text: "id: " + e.ID, End: "\n"})
	}
	if data != nil {
		for _, l := range strings.Split(string(data), "\n") {
			ev.Lines = append(ev.Lines, sse.Line{Text: "data: " + l, End: "\n"})
		}
	}
	w.Write(ev.Bytes())
	flush(w)
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
