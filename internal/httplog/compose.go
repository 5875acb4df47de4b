package httplog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// ComposedHeader is line 1 of a composed session log: the ACP-side values
// the harness knows (session id, cwd, agent from initialize) and the
// model dialect.
type ComposedHeader struct {
	Type      string               `json:"type"` // always "session"
	Version   int                  `json:"version"`
	ID        string               `json:"id"`
	CreatedAt int64                `json:"createdAt"`
	Cwd       string               `json:"cwd"`
	Dialect   string               `json:"dialect"`
	Agent     sessionlog.AgentInfo `json:"agent"`
}

// Exchange is one model call over HTTP: what the agent asked and what it
// was answered.
type Exchange struct {
	Request  Request
	Response Response
}

// Request is the recorded side of a model request.
type Request struct {
	Method string
	Path   string            // below the proxy's base URL, query included ("/v1/messages?beta=true")
	Header map[string]string // allowlisted headers, lower-case names; nil: none
	Body   []byte            // verbatim (usually JSON); nil: no body
}

// Response is the recorded side of a model response.
type Response struct {
	Status int
	Header map[string]string // allowlisted headers, lower-case names; nil: none
	Stream bool              // an SSE stream (Events); false: a body (Body)
	Events []SSEEvent
	Body   []byte
	End    string // "": complete; otherwise how it ended (see the End* constants)
}

// How a response ended when it did not complete.
const (
	EndDisconnect = "disconnect" // the connection broke mid-stream
	EndHang       = "hang"       // the stream stalled until the client gave up
	EndCancel     = "cancel"     // the client went away mid-stream
)

// SSEEvent is one server-sent event; Data holds its data lines joined by "\n".
type SSEEvent struct {
	Event string
	ID    string
	Data  []byte
}

// lookup returns the dialect of a composed log, nil for an unknown one
// (whose requests are then stored whole, never as a follow-up).
func lookup(name string) *dialect.Dialect {
	d, _ := dialect.Lookup(name)
	return d
}

// convMember is the top-level request member that holds d's
// conversation; "" for an unknown dialect.
func convMember(d *dialect.Dialect) string {
	if d == nil {
		return ""
	}
	return d.Conversation
}

// Compose renders exchanges as a composed session log under header h.
// pins nil: nothing is pinned; else pins keeps the values the log's
// placeholders stand for (Pins.Write stores them).
//
// An agent that speaks to its model over HTTP writes no session log of its
// own; acpsnap composes one from the model exchanges it relayed (Compose)
// and reads the exchanges back from it to replay them (Decompose). Line 1
// is a ComposedHeader:
//
//	{"type":"session","version":1,"id":"…","createdAt":0,"cwd":"…","dialect":"openai-responses","agent":{"name":"codex-acp","version":"0.16.0"}}
//
// then, per model call in call order (calls are numbered from 1), these
// events, seq contiguous from 0 across the log, time always 0:
//
//	model/request  {"call":N,"method":"POST","path":"/v1/responses","headers":{…},"body":{…}}
//	               or, for a follow-up: {"call":N,…,"base":K,"append":[…],"changed":{…},"unset":[…]}
//	model/status   {"call":N,"status":200,"stream":true,"headers":{…}}
//	model/event    {"call":N,"event":"response.created","id"?:"…","data":{…}}   one per SSE event
//	model/response {"call":N,"body":{…}}                                     a non-streamed body (bodyText unless canonical)
//	model/end      {"call":N,"end":"disconnect"}                              only when it did not complete
//
// Payloads (request bodies, event data, response bodies) are stored
// verbatim: embedded as JSON when they are one JSON value on one line,
// else as "<name>Text" (a JSON string) or "<name>Base64". headers is
// omitted when empty.
//
// A follow-up request repeats an earlier request of the same conversation
// plus new items. It is stored as "call K + these items": base K is the
// earlier call with the same system prompt ("system", "instructions")
// whose conversation array (see Conversation) is the longest prefix of
// this one's (the latest such call on a tie; a retry repeats
// call K whole and appends nothing), append the
// new items, changed the other top-level members whose value differs or
// that K lacks, in body order, unset the members of K this body lacks.
// Reading rebuilds the body from K's: K's members in K's order, changed
// ones replaced, unset ones dropped, new ones appended. Compose uses this
// form only when that rebuild is byte-identical to the body, so reading
// is exact. Child conversations (subagents) are told apart by this prefix
// chain, never by arrival order.
//
// Pins: see Pins. A full body holds "{{pin:system:<hash>}}" and
// "{{pin:tools:<hash>}}" in place of its system prompt and tool schemas; a
// body that holds such a string of its own is stored as bodyText, which
// reading never expands.
//
// Compose stops when ctx ends, with its error: a run interrupted while it
// composes a flood of calls does not wait for the log.
func Compose(ctx context.Context, exchanges []Exchange, h ComposedHeader, pins *Pins) ([]byte, error) {
	h.Type = "session"
	if h.Version == 0 {
		h.Version = 1
	}
	out, err := strictjson.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("sessionlog: compose header: %w", err)
	}
	d := lookup(h.Dialect)
	c := composer{dialect: d, conv: convMember(d), pins: pins, out: out, latest: map[prefixKey]int{}}
	// A follow-up depends only on the calls before it, never on the pins.
	ups := make([][]member, len(exchanges))
	for i, x := range exchanges {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		ups[i] = c.followUp(x.Request)
		c.bodies = append(c.bodies, x.Request)
	}
	for i, x := range exchanges {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		if err := c.exchange(i+1, x, ups[i]); err != nil {
			return nil, err
		}
	}
	return c.out, nil
}

// stopped is ctx's error, looked at every 64 calls (the i-th).
func stopped(ctx context.Context, i int) error {
	if i%64 != 0 || ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("sessionlog: compose: stopped at call %d: %w", i+1, context.Cause(ctx))
}

type composer struct {
	dialect *dialect.Dialect
	conv    string
	pins    *Pins
	out     []byte
	seq     int
	bodies  []Request // by call - 1, for follow-ups
	calls   []parsed  // by call - 1, as followUp read them
	// latest is, per conversation prefix, the latest call whose whole
	// conversation it is.
	latest map[prefixKey]int
}

func (c *composer) line(typ string, call int, ms ...member) {
	data := buildObject(append([]member{{"call", []byte(strconv.Itoa(call))}}, ms...))
	c.out = append(c.out, buildObject([]member{
		{"type", quote(typ)}, {"seq", []byte(strconv.Itoa(c.seq))}, {"time", []byte("0")}, {"data", data},
	})...)
	c.out = append(c.out, '\n')
	c.seq++
}

// exchange writes the lines of one call; up is its follow-up form (nil:
// the body is stored whole).
func (c *composer) exchange(call int, x Exchange, up []member) error {
	q := x.Request
	ms := []member{{"method", quote(q.Method)}, {"path", quote(q.Path)}}
	ms = append(ms, headerMembers(q.Header)...)
	if up != nil {
		ms = append(ms, up...)
	} else if bytes.Contains(q.Body, pinMark) {
		ms = append(ms, payload("body", q.Body, true)...) // never expanded on reading
	} else {
		ms = append(ms, payload("body", c.pins.pin(c.dialect, q.Body), false)...)
	}
	c.line("model/request", call, ms...)

	r := x.Response
	st := []member{{"status", []byte(strconv.Itoa(r.Status))}}
	if r.Stream {
		st = append(st, member{"stream", []byte("true")})
	}
	c.line("model/status", call, append(st, headerMembers(r.Header)...)...)
	for _, e := range r.Events {
		var em []member
		if e.Event != "" {
			em = append(em, member{"event", quote(e.Event)})
		}
		if e.ID != "" {
			em = append(em, member{"id", quote(e.ID)})
		}
		c.line("model/event", call, append(em, payload("data", e.Data, false)...)...)
	}
	if !r.Stream && r.Body != nil {
		// A body in any form but the canonical one is kept as text: the
		// log's normalization would sort and compact it, and an agent that
		// shows an error body would then see other bytes in replay.
		c.line("model/response", call, payload("body", r.Body, !canonical(r.Body))...)
	} else if !r.Stream && len(r.Events) > 0 || r.Stream && r.Body != nil {
		return fmt.Errorf("sessionlog: compose call %d: a response has events or a body, not both", call)
	}
	if r.End != "" {
		c.line("model/end", call, member{"end", quote(r.End)})
	}
	return nil
}

// pinMark starts every pin placeholder: a body that holds one literally is
// stored as text, so that reading never expands it.
var pinMark = []byte(`"{{pin:`)

func headerMembers(h map[string]string) []member {
	if len(h) == 0 {
		return nil
	}
	b, _ := strictjson.Encode(h) // sorted keys
	return []member{{"headers", b}}
}

// followUp returns the "base/append/changed/unset" members for q, or nil
// when q is not a byte-exact follow-up of an earlier call. It reads q once
// and indexes it as a base for the calls after it, so composing is linear
// in the size of the exchanges however many calls there are.
func (c *composer) followUp(q Request) []member {
	if c.conv == "" {
		return nil
	}
	body, ok := objectMembers(q.Body)
	if !ok {
		c.calls = append(c.calls, parsed{})
		return nil
	}
	items, ok := convItems(body, c.conv)
	if !ok {
		c.calls = append(c.calls, parsed{body: body})
		return nil
	}
	prefixes := c.prefixKeys(q, body, items)
	base := c.base(q, body, items, prefixes)
	c.calls = append(c.calls, parsed{body: body, items: items})
	if len(items) > 0 {
		c.latest[prefixes[len(items)-1]] = len(c.calls) // the latest call on a tie
	}
	if base == 0 || !bytes.Equal(buildObject(body), q.Body) {
		return nil
	}
	baseBody, baseItems := c.calls[base-1].body, c.calls[base-1].items
	changed, unset := memberDelta(baseBody, body, c.conv)
	if !bytes.Equal(rebuild(baseBody, c.conv, items, changed, unset), q.Body) {
		return nil
	}
	ms := []member{{"base", []byte(strconv.Itoa(base))}, {"append", buildArray(items[len(baseItems):])}}
	if len(changed) > 0 {
		ms = append(ms, member{"changed", buildObject(changed)})
	}
	if len(unset) > 0 {
		b, _ := strictjson.Encode(unset)
		ms = append(ms, member{"unset", b})
	}
	return ms
}

// parsed is an earlier call's body as followUp read it: its members (nil:
// not a JSON object) and its conversation items (nil: none).
type parsed struct {
	body  []member
	items [][]byte
}

// prefixKey identifies a conversation prefix: the method, path and thread
// members of its request and the items up to one of them.
type prefixKey [sha256.Size]byte

// prefixKeys returns, for each n from 1 to len(items), the key of q's
// first n items: a chain, each key hashing the one before it and one item,
// so that all of them cost one pass over q.
func (c *composer) prefixKeys(q Request, body []member, items [][]byte) []prefixKey {
	h := sha256.New()
	field := func(b []byte, present bool) {
		var n [9]byte
		if present {
			n[0] = 1
		}
		binary.BigEndian.PutUint64(n[1:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte(q.Method), true)
	field([]byte(q.Path), true)
	for _, k := range threadMembers {
		v := memberValue(body, k)
		field(v, v != nil)
	}
	var k prefixKey
	h.Sum(k[:0])
	keys := make([]prefixKey, len(items))
	for i, it := range items {
		h.Reset()
		h.Write(k[:])
		field(it, true)
		h.Sum(k[:0])
		keys[i] = k
	}
	return keys
}

// base returns the call (1-based) whose conversation items are the
// longest prefix of items (all of them, for a retry), the latest on a
// tie, with q's method, path and thread; 0 for none. prefixes are
// prefixKeys of q: one lookup per prefix length, longest first.
func (c *composer) base(q Request, body []member, items [][]byte, prefixes []prefixKey) int {
	for n := len(items); n > 0; n-- {
		call, ok := c.latest[prefixes[n-1]]
		if !ok {
			continue
		}
		b, p := c.bodies[call-1], c.calls[call-1]
		// The key says so already; the bytes make it certain.
		if b.Method == q.Method && b.Path == q.Path && sameThread(p.body, body) && len(p.items) == n && isPrefix(p.items, items) {
			return call
		}
	}
	return 0
}

// threadMembers hold a conversation's system prompt outside its array: a
// request with another one (a subagent) never continues this one.
var threadMembers = []string{"system", "instructions"}

func sameThread(a, b []member) bool {
	for _, k := range threadMembers {
		if !bytes.Equal(memberValue(a, k), memberValue(b, k)) {
			return false
		}
	}
	return true
}

func convItems(ms []member, conv string) ([][]byte, bool) {
	for _, m := range ms {
		if m.Key == conv {
			es, ok := arrayElements(m.Raw)
			return es, ok && bytes.Equal(buildArray(es), m.Raw)
		}
	}
	return nil, false
}

func isPrefix(p, s [][]byte) bool {
	for i := range p {
		if !bytes.Equal(p[i], s[i]) {
			return false
		}
	}
	return true
}

// memberDelta lists the members of body (other than conv) that base lacks
// or holds with other bytes, in body order, and the keys of base that body
// lacks.
func memberDelta(base, body []member, conv string) (changed []member, unset []string) {
	in := map[string][]byte{}
	for _, m := range body {
		in[m.Key] = m.Raw
	}
	was := map[string][]byte{}
	for _, m := range base {
		was[m.Key] = m.Raw
		if _, ok := in[m.Key]; !ok {
			unset = append(unset, m.Key)
		}
	}
	for _, m := range body {
		if old, ok := was[m.Key]; m.Key != conv && (!ok || !bytes.Equal(old, m.Raw)) {
			changed = append(changed, m)
		}
	}
	return changed, unset
}

// rebuild is how a reader turns base + delta back into a body.
func rebuild(base []member, conv string, items [][]byte, changed []member, unset []string) []byte {
	drop := map[string]bool{}
	for _, k := range unset {
		drop[k] = true
	}
	repl := map[string][]byte{}
	for _, m := range changed {
		repl[m.Key] = m.Raw
	}
	var out []member
	seen := map[string]bool{}
	for _, m := range base {
		seen[m.Key] = true
		switch {
		case drop[m.Key]:
		case m.Key == conv:
			out = append(out, member{m.Key, buildArray(items)})
		case repl[m.Key] != nil:
			out = append(out, member{m.Key, repl[m.Key]})
		default:
			out = append(out, m)
		}
	}
	for _, m := range changed {
		if !seen[m.Key] {
			out = append(out, m)
		}
	}
	return buildObject(out)
}
