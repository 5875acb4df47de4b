package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// MaxEventSize bounds one event (all of its lines).
const MaxEventSize = 16 << 20

// ErrEventTooLarge is returned by Reader.Next for an event over MaxEventSize.
var ErrEventTooLarge = errors.New("sse: event larger than 16 MiB")

// Line is one line of an event: Text without its terminator, and End, the
// terminator as sent ("\n", "\r\n", "\r", or "" for a last line cut off by
// the end of the input).
type Line struct {
	Text string
	End  string
}

// Field splits the line into field name and value: "data: x" is ("data",
// "x"), "data:x" too, "data" is ("data", ""). A comment's name is "" and
// its value the text after the colon, as is.
func (l Line) Field() (name, value string) {
	name, value, _ = strings.Cut(l.Text, ":")
	if name == "" {
		return "", value
	}
	return name, strings.TrimPrefix(value, " ")
}

// Event is one event: its lines and the terminator of the blank line that
// ended it ("" when the input ended first). An event may have no lines:
// a stray blank line between events.
type Event struct {
	Lines []Line
	End   string
}

// New returns the event "event: typ" (omitted when typ is "") and one
// "data: " line per line of data, each ended by "\n", then a blank line.
func New(typ, data string) Event {
	var ev Event
	if typ != "" {
		ev.Lines = append(ev.Lines, Line{"event: " + typ, "\n"})
	}
	for _, d := range strings.Split(data, "\n") {
		ev.Lines = append(ev.Lines, Line{"data: " + d, "\n"})
	}
	ev.End = "\n"
	return ev
}

// Comment returns the comment event ": text" with its blank line, the
// usual keep-alive.
func Comment(text string) Event {
	return Event{Lines: []Line{{":" + text, "\n"}}, End: "\n"}
}

// Type returns the value of the event's last "event" field, "" when it has
// none (EventSource then calls it "message").
func (ev Event) Type() string {
	typ := ""
	for _, l := range ev.Lines {
		if name, value := l.Field(); name == "event" {
			typ = value
		}
	}
	return typ
}

// Data returns the event's data lines joined by "\n".
func (ev Event) Data() string {
	var b strings.Builder
	first := true
	for _, l := range ev.Lines {
		if name, value := l.Field(); name == "data" {
			if !first {
				b.WriteByte('\n')
			}
			b.WriteString(value)
			first = false
		}
	}
	return b.String()
}

// HasData reports whether the event has a data line, that is whether
// EventSource would dispatch it.
func (ev Event) HasData() bool {
	for _, l := range ev.Lines {
		if name, _ := l.Field(); name == "data" {
			return true
		}
	}
	return false
}

// Bytes returns the event exactly as it is framed on the wire.
func (ev Event) Bytes() []byte {
	return ev.AppendTo(nil)
}

// AppendTo appends the event's bytes to b.
func (ev Event) AppendTo(b []byte) []byte {
	for _, l := range ev.Lines {
		b = append(b, l.Text...)
		b = append(b, l.End...)
	}
	return append(b, ev.End...)
}

// Reader reads events from a stream.
type Reader struct {
	r       *bufio.Reader
	pending []Line // lines split off a segment, not yet consumed
	eof     bool
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 32<<10)}
}

// Next returns the next event. At the end of the input it returns io.EOF;
// a read error is returned as is, and the event it cut off is lost.
func (r *Reader) Next() (Event, error) {
	var ev Event
	size := 0
	for {
		l, err := r.line()
		if err == io.EOF && len(ev.Lines) > 0 {
			return ev, nil
		}
		if err != nil {
			return Event{}, err
		}
		if l.Text == "" && l.End != "" {
			ev.End = l.End
			return ev, nil
		}
		if size += len(l.Text) + len(l.End); size > MaxEventSize {
			return Event{}, ErrEventTooLarge
		}
		ev.Lines = append(ev.Lines, l)
		if l.End == "" {
			return ev, nil // the input ended within the line
		}
	}
}

// line returns the next line.
func (r *Reader) line() (Line, error) {
	if len(r.pending) == 0 {
		if err := r.segment(); err != nil {
			return Line{}, err
		}
	}
	l := r.pending[0]
	r.pending = r.pending[1:]
	return l, nil
}

// segment reads up to the next "\n" (or the end of the input) and splits
// what it read into lines at every line end.
func (r *Reader) segment() error {
	if r.eof {
		return io.EOF
	}
	var seg []byte
	for {
		frag, err := r.r.ReadSlice('\n')
		if len(seg)+len(frag) > MaxEventSize {
			return ErrEventTooLarge
		}
		seg = append(seg, frag...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(seg) > 0:
			r.eof = true
		case err != nil:
			return err
		}
		r.pending = splitLines(seg)
		return nil
	}
}

// splitLines splits seg, which ends with "\n" or at the end of the input,
// at "\r\n", "\n" and lone "\r".
func splitLines(seg []byte) []Line {
	var lines []Line
	for len(seg) > 0 {
		i := bytes.IndexAny(seg, "\r\n")
		if i < 0 {
			return append(lines, Line{Text: string(seg)})
		}
		end := 1
		if seg[i] == '\r' && i+1 < len(seg) && seg[i+1] == '\n' {
			end = 2
		}
		lines = append(lines, Line{Text: string(seg[:i]), End: string(seg[i : i+end])})
		seg = seg[i+end:]
	}
	return lines
}
