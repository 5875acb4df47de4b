// Package sse reads and writes server-sent events (the WHATWG EventSource
// framing every model dialect streams in) without losing a byte: an Event
// keeps each line as it was sent and each line's terminator, so that
//
//	r := sse.NewReader(body)
//	for {
//		ev, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		// ev.Type(), ev.Data(), ev.HasData()
//		w.Write(ev.Bytes()) // the very bytes that were read
//	}
//
// copies a stream exactly: comments (": keep-alive"), blank lines between
// events, "data:" with or without its space, CRLF or CR line ends, and an
// event cut off by the end of the input all come out as they went in.
//
// The reading rules are those of EventSource, with one difference: an
// event cut off by the end of the input (its blank line, or even its last
// line end, missing) is returned, and its data counts, because servers that
// end a stream with "data: [DONE]" and close at once are common. Lines end
// with "\n", "\r\n" or "\r". A line is a field "name: value" (one optional
// space after the colon is not part of the value), a field without value
// ("data", no colon), or a comment (it starts with ":"). A blank line ends
// the event. Data lines accumulate, joined by "\n"; an event without any
// data line (only comments, only "event:", a stray blank line) carries no
// data and is not dispatched by EventSource: HasData tells.
//
// One event is at most MaxEventSize bytes; a larger one is refused with
// ErrEventTooLarge, so a misbehaving server cannot make a reader buffer
// without limit.
//
// The package is written by hand: it is small, and no SSE library keeps the
// bytes of what it parsed.
package sse
