package httplog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Decompose reads a composed session log (see Compose) back into its
// header and exchanges, restoring follow-ups and pins exactly: the replay
// source of the proxy. name prefixes errors ("name:line: $.path: …");
// pins nil: a log that refers to a pin is an error.
func Decompose(log []byte, name string, pins *Pins) (ComposedHeader, []Exchange, error) {
	r := reader{name: name, pins: pins}
	err := strictjson.Each(bytes.NewReader(log), func(n int, line []byte) error {
		d, v, err := strictjson.Parse(line, name, n-1, "$")
		if err != nil {
			return err
		}
		if n == 1 {
			return r.header(d, v)
		}
		return r.event(d, v)
	})
	if err == nil && r.h.Type == "" {
		err = fmt.Errorf("%s:1: missing header", name)
	}
	if err != nil {
		return ComposedHeader{}, nil, fmt.Errorf("sessionlog: decompose: %w", err)
	}
	return r.h, r.xs, nil
}

type reader struct {
	name string
	pins *Pins
	h    ComposedHeader
	seq  int
	xs   []Exchange
	// phase of the current call: 0 request read, 1 status read, 2 body read, 3 end read
	phase int
}

func (r *reader) header(d *strictjson.Doc, v strictjson.Value) error {
	m, err := d.Members(v, "a header")
	if err != nil {
		return err
	}
	if err := d.CheckMembers(v, m, []string{"type", "version", "id", "createdAt", "cwd", "dialect", "agent"}, nil); err != nil {
		return err
	}
	a, err := d.Members(m["agent"], "an agent")
	if err != nil {
		return err
	}
	if err := d.CheckMembers(m["agent"], a, []string{"name", "version"}, nil); err != nil {
		return err
	}
	if err := json.Unmarshal(v.Raw, &r.h); err != nil {
		return d.Errorf(v.Off, v.Path, "%v", err)
	}
	if r.h.Type != "session" {
		return d.PathErrorf("$.type", "is %q, want \"session\"", r.h.Type)
	}
	return nil
}

// eventKeys are the data members each event type requires and allows.
var eventKeys = map[string]struct{ required, optional []string }{
	"model/request":  {[]string{"call", "method", "path"}, []string{"headers", "body", "bodyText", "bodyBase64", "base", "append", "changed", "unset"}},
	"model/status":   {[]string{"call", "status"}, []string{"stream", "headers"}},
	"model/event":    {[]string{"call"}, []string{"event", "id", "data", "dataText", "dataBase64"}},
	"model/response": {[]string{"call"}, []string{"body", "bodyText", "bodyBase64"}},
	"model/end":      {[]string{"call", "end"}, nil},
}

func (r *reader) event(d *strictjson.Doc, v strictjson.Value) error {
	m, err := d.Members(v, "an event")
	if err != nil {
		return err
	}
	if err := d.CheckMembers(v, m, []string{"type", "seq", "time", "data"}, nil); err != nil {
		return err
	}
	typ, err := d.Str(m["type"])
	if err != nil {
		return err
	}
	if seq, err := d.Int(m["seq"]); err != nil {
		return err
	} else if seq != r.seq {
		return d.PathErrorf("$.seq", "is %d, want %d", seq, r.seq)
	}
	r.seq++
	keys, ok := eventKeys[typ]
	if !ok {
		return d.PathErrorf("$.type", "unknown event %q in a composed log", typ)
	}
	data, err := d.Members(m["data"], "a data")
	if err != nil {
		return err
	}
	if err := d.CheckMembers(m["data"], data, keys.required, keys.optional); err != nil {
		return err
	}
	call, err := d.Int(data["call"])
	if err != nil {
		return err
	}
	e := composedEvent{d: d, m: data, typ: typ, call: call}
	return r.apply(e)
}

type composedEvent struct {
	d    *strictjson.Doc
	m    map[string]strictjson.Value
	typ  string
	call int
}

func (e composedEvent) errorf(key, format string, args ...any) error {
	return e.d.PathErrorf("$.data."+key, format, args...)
}

func (e composedEvent) raw() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, v := range e.m {
		out[k] = v.Raw
	}
	return out
}

// apply is the state machine of a call: request, status, then events or
// one response, then an optional end.
func (r *reader) apply(e composedEvent) error {
	if e.typ == "model/request" {
		if e.call != len(r.xs)+1 {
			return e.errorf("call", "is %d, want %d", e.call, len(r.xs)+1)
		}
		q, err := r.request(e)
		if err != nil {
			return err
		}
		r.xs = append(r.xs, Exchange{Request: q})
		r.phase = 0
		return nil
	}
	if len(r.xs) == 0 || e.call != len(r.xs) {
		return e.errorf("call", "is %d, want %d (the call of the last model/request)", e.call, len(r.xs))
	}
	resp := &r.xs[len(r.xs)-1].Response
	switch {
	case e.typ == "model/status" && r.phase == 0:
		r.phase = 1
		return r.status(e, resp)
	case e.typ == "model/event" && r.phase == 1 && resp.Stream:
		ev, err := sseEvent(e)
		resp.Events = append(resp.Events, ev)
		return err
	case e.typ == "model/response" && r.phase == 1 && !resp.Stream:
		r.phase = 2
		b, err := readPayload("body", e.raw())
		if err != nil {
			return e.errorf("body", "%v", err)
		}
		resp.Body = b
		return nil
	case e.typ == "model/end" && r.phase >= 1 && r.phase < 3:
		r.phase = 3
		s, err := e.d.Str(e.m["end"])
		resp.End = s
		return err
	}
	return e.errorf("call", "%s out of order in call %d", e.typ, e.call)
}

func (r *reader) status(e composedEvent, resp *Response) error {
	st, err := e.d.Int(e.m["status"])
	if err != nil {
		return err
	}
	if st < 100 || st > 599 {
		return e.errorf("status", "is %d, want an HTTP status (100 to 599)", st)
	}
	resp.Status = st
	if v, ok := e.m["stream"]; ok {
		if resp.Stream, err = e.d.Bool(v); err != nil {
			return err
		}
	}
	resp.Header, err = headers(e)
	return err
}

func headers(e composedEvent) (map[string]string, error) {
	v, ok := e.m["headers"]
	if !ok {
		return nil, nil
	}
	var h map[string]string
	if json.Unmarshal(v.Raw, &h) != nil {
		return nil, e.errorf("headers", "want an object of strings")
	}
	return h, nil
}

func sseEvent(e composedEvent) (SSEEvent, error) {
	var ev SSEEvent
	for key, dst := range map[string]*string{"event": &ev.Event, "id": &ev.ID} {
		if v, ok := e.m[key]; ok {
			s, err := e.d.Str(v)
			if err != nil {
				return ev, err
			}
			*dst = s
		}
	}
	b, err := readPayload("data", e.raw())
	if err != nil {
		return ev, e.errorf("data", "%v", err)
	}
	ev.Data = b
	return ev, nil
}

func (r *reader) request(e composedEvent) (Request, error) {
	var q Request
	var err error
	if q.Method, err = e.d.Str(e.m["method"]); err != nil {
		return q, err
	}
	if q.Path, err = e.d.Str(e.m["path"]); err != nil {
		return q, err
	}
	if q.Header, err = headers(e); err != nil {
		return q, err
	}
	if _, ok := e.m["base"]; ok {
		q.Body, err = r.followUp(e)
		return q, err
	}
	for _, k := range []string{"append", "changed", "unset"} {
		if _, ok := e.m[k]; ok {
			return q, e.errorf(k, "only with base")
		}
	}
	if q.Body, err = readPayload("body", e.raw()); err != nil {
		return q, e.errorf("body", "%v", err)
	}
	if _, ok := e.m["body"]; ok {
		if q.Body, err = r.pins.Expand(q.Body); err != nil {
			return q, e.errorf("body", "%v", err)
		}
	}
	return q, nil
}

// followUp rebuilds a body stored as base + append (+ changed, unset).
func (r *reader) followUp(e composedEvent) ([]byte, error) {
	for _, k := range []string{"body", "bodyText", "bodyBase64"} {
		if _, ok := e.m[k]; ok {
			return nil, e.errorf(k, "not with base")
		}
	}
	base, err := e.d.Int(e.m["base"])
	if err != nil {
		return nil, err
	}
	if base < 1 || base >= e.call {
		return nil, e.errorf("base", "is %d, want an earlier call (1..%d)", base, e.call-1)
	}
	conv := convMember(lookup(r.h.Dialect))
	baseBody, ok := objectMembers(r.xs[base-1].Request.Body)
	items, ok2 := convItems(baseBody, conv)
	if !ok || !ok2 {
		return nil, e.errorf("base", "call %d has no %q conversation array to extend", base, conv)
	}
	v, ok := e.m["append"]
	if !ok {
		return nil, e.errorf("base", "needs append")
	}
	more, ok := arrayElements(v.Raw)
	if !ok {
		return nil, e.errorf("append", "want an array")
	}
	var changed []member
	if v, ok := e.m["changed"]; ok {
		if changed, ok = objectMembers(v.Raw); !ok {
			return nil, e.errorf("changed", "want an object")
		}
	}
	var unset []string
	if v, ok := e.m["unset"]; ok && json.Unmarshal(v.Raw, &unset) != nil {
		return nil, e.errorf("unset", "want an array of strings")
	}
	return rebuild(baseBody, conv, append(items[:len(items):len(items)], more...), changed, unset), nil
}
