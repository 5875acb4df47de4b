package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/wire/sse"
)

// leaveGrace is how long the upstream may still end its answer cleanly
// after the agent went away (see record).
const leaveGrace = 200 * time.Millisecond

// record forwards one request upstream with the real key and streams the
// answer back event by event, keeping the exchange.
func (p *Proxy) record(w http.ResponseWriter, r *http.Request, path string, call int) {
	x := &httplog.Exchange{}
	p.mu.Lock()
	for len(p.kept) < call {
		p.kept = append(p.kept, nil)
	}
	p.kept[call-1] = x
	p.mu.Unlock()

	q, err := p.readRequest(r, path)
	defer p.keepRequest(call, x, q) // normalized off the streaming path
	if err != nil {
		p.fail("call %d: %v", call, err)
		status := http.StatusBadRequest
		if errors.Is(err, errTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		p.setResponse(x, p.ownAnswer(w, status, "request", err.Error()))
		return
	}
	raw := q.Body
	pt := p.cfg.Overrides.find(call)
	if pt != nil && pt.Status != 0 {
		p.answerStatus(w, x, pt)
		return
	}
	// The upstream request outlives the agent's by leaveGrace: an agent
	// that goes away right after the last event (codex-acp drops the
	// stream at response.completed) has not cancelled anything when the
	// upstream then ends cleanly, and whether its EOF or the agent's
	// leaving is seen first must not change the recording.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	stop := context.AfterFunc(r.Context(), func() { time.AfterFunc(leaveGrace, cancel) })
	defer stop()
	req, err := p.upstreamRequest(ctx, r, path, raw)
	var resp *http.Response
	if err == nil {
		resp, err = p.cfg.Client.Do(req)
	}
	if err != nil { // answered final: no retry storm against a dead upstream
		msg := fmt.Sprintf("upstream: %v", p.scrubString(err.Error()))
		p.fail("call %d: %s", call, msg)
		p.setResponse(x, p.ownAnswer(w, http.StatusBadGateway, "upstream", msg))
		return
	}
	defer resp.Body.Close()
	p.relay(w, r, call, x, resp, pt)
}

// upstreamRequest is r for the upstream: path (decoded, then "?" and the
// raw query) below the upstream's, escaped anew so that the upstream reads
// the path the endpoint check read; the agent's headers minus hop and
// secret ones, plus the real key.
func (p *Proxy) upstreamRequest(ctx context.Context, r *http.Request, path string, body []byte) (*http.Request, error) {
	u, err := url.Parse(strings.TrimSuffix(p.cfg.Upstream, "/"))
	if err != nil {
		return nil, err
	}
	decoded, query, _ := strings.Cut(path, "?")
	u.Path, u.RawPath, u.RawQuery = u.Path+decoded, "", query
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Header {
		if lk := strings.ToLower(k); !hopHeaders[lk] && !secretHeaders[lk] {
			req.Header[k] = vs
		}
	}
	if p.cfg.Key != "" {
		p.dialect.SetKey(req.Header, p.cfg.Key)
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	return req, nil
}

// relay copies the upstream response to the agent: headers at once, then
// an SSE stream event by event (flushed at each blank line) or the body
// (which counts as one event for a patch's cut).
func (p *Proxy) relay(w http.ResponseWriter, r *http.Request, call int, x *httplog.Exchange, resp *http.Response, pt *Patch) {
	seen := httplog.Response{Status: resp.StatusCode, Header: p.keptHeaders(resp.Header), Stream: isSSE(resp.Header)}
	limit := pt.after()
	if !seen.Stream && limit == 0 && pt.DisconnectAfter == 0 {
		seen.End = httplog.EndDisconnect
		p.keepResponse(call, x, seen)
		panic(http.ErrAbortHandler) // before the status, as in replay
	}
	for k, vs := range resp.Header {
		if lk := strings.ToLower(k); !hopHeaders[lk] {
			for _, v := range vs {
				w.Header().Add(k, string(p.scrub([]byte(v))))
			}
		}
	}
	w.WriteHeader(resp.StatusCode)
	flush(w)
	reached := limit >= 0
	body := &capped{r: resp.Body, left: p.cfg.maxResponseBytes(), max: p.cfg.maxResponseBytes(), what: "the upstream's answer"}
	var err error
	if seen.Stream {
		seen.Events, seen.End, err = p.relayEvents(w, r.Context(), body, limit)
		reached = reached && len(seen.Events) == limit
	} else if limit != 0 {
		var b []byte
		b, err = io.ReadAll(body)
		w.Write(p.scrub(b))
		seen.Body = b
		if err != nil {
			seen.End = endOf(r.Context())
		}
		if !errors.Is(err, errTooLarge) {
			err = nil // a broken connection is what the upstream did: recorded as such
		}
	}
	if err != nil {
		p.fail("call %d: %v", call, err)
		seen.End = httplog.EndDisconnect
	}
	if reached && seen.End == "" {
		resp.Body.Close()
		var sent [][]byte
		for _, e := range seen.Events {
			sent = append(sent, e.Data)
		}
		seen.End = p.cut(r, call, pt, sent)
	}
	p.keepResponse(call, x, seen)
	if seen.End == httplog.EndDisconnect {
		panic(http.ErrAbortHandler) // the agent sees the break the upstream made, or the patch's
	}
}

func isSSE(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

func endOf(ctx context.Context) string {
	if ctx.Err() != nil {
		return httplog.EndCancel
	}
	return httplog.EndDisconnect
}

// relayEvents writes the SSE stream body to w event by event as it
// arrives, byte for byte (comments and line ends included; the key
// scrubbed), flushing after each, and returns the events kept (limit >= 0:
// stop after that many) and how the stream ended ("" for a clean end or
// the limit). An answer over a cap (Config.MaxEvents, MaxResponseBytes,
// sse.MaxEventSize: an endless line) is an error: no fixture.
func (p *Proxy) relayEvents(w http.ResponseWriter, ctx context.Context, body io.Reader, limit int) ([]httplog.SSEEvent, string, error) {
	r := sse.NewReader(body)
	var events []httplog.SSEEvent
	for n := 0; limit < 0 || len(events) < limit; n++ {
		if n == p.cfg.maxEvents() {
			return events, httplog.EndDisconnect, fmt.Errorf("the upstream's stream: more than %d events: %w", n, errTooLarge)
		}
		ev, err := r.Next()
		switch {
		case errors.Is(err, io.EOF):
			return events, "", nil // complete, even when the agent has left meanwhile
		case errors.Is(err, errTooLarge) || errors.Is(err, sse.ErrEventTooLarge):
			return events, httplog.EndDisconnect, fmt.Errorf("the upstream's stream: %w", err)
		case err != nil:
			return events, endOf(ctx), nil // the upstream broke the stream: recorded as it happened
		case ctx.Err() != nil:
			return events, httplog.EndCancel, nil // the agent left before this event
		}
		if _, err := w.Write(p.scrub(ev.Bytes())); err != nil {
			return events, httplog.EndCancel, nil
		}
		flush(w)
		if e, ok := keptEvent(ev); ok {
			events = append(events, e)
		}
	}
	return events, "", nil
}

// keptEvent is what an exchange keeps of an event: its type, id and data;
// an event with none of them (a comment, a stray blank line) is not kept.
func keptEvent(ev sse.Event) (httplog.SSEEvent, bool) {
	e := httplog.SSEEvent{Event: ev.Type()}
	for _, l := range ev.Lines {
		if name, value := l.Field(); name == "id" {
			e.ID = value
		}
	}
	if ev.HasData() {
		e.Data = []byte(ev.Data())
	}
	return e, e.Event != "" || e.ID != "" || e.Data != nil
}

func (p *Proxy) keptHeaders(h http.Header) map[string]string {
	var out map[string]string
	for name := range p.respHdr {
		if v := h.Values(name); len(v) > 0 {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = strings.Join(v, ", ")
		}
	}
	return out
}

// keepRequest normalizes a forwarded request and keeps it.
func (p *Proxy) keepRequest(call int, x *httplog.Exchange, q httplog.Request) {
	q, err := p.normalizeRequest(q)
	if err != nil {
		p.fail("call %d: request: %v", call, err)
	}
	p.mu.Lock()
	x.Request = q
	p.mu.Unlock()
}

// keepResponse normalizes a relayed response (off the streaming path) and
// keeps it.
func (p *Proxy) keepResponse(call int, x *httplog.Exchange, r httplog.Response) {
	var err error
	if r.Header, err = p.normalizeHeader(r.Header); err != nil {
		p.fail("call %d: response: %v", call, err)
	}
	if r.Body, err = p.normalize(r.Body); err != nil {
		p.fail("call %d: response: %v", call, err)
	}
	for i := range r.Events {
		if r.Events[i].Data, err = p.normalize(r.Events[i].Data); err != nil {
			p.fail("call %d: event %d: %v", call, i, err)
		}
	}
	p.setResponse(x, r)
}
