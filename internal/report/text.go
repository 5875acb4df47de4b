package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/console"
)

// TextConfig says how WriteText prints. The zero value is plain text
// 100 columns wide.
type TextConfig struct {
	// Color marks roles with ANSI colours and dims thoughts; the caller
	// decides (a terminal, NO_COLOR unset). false: plain text.
	Color bool
	// Width bounds every line (text is wrapped, a tool's input and output
	// cut with their size); 0: 100. At least 40.
	Width int
}

// ANSI styles of the terminal view.
const (
	sBold   = "\x1b[1m"
	sDim    = "\x1b[2m"
	sRed    = "\x1b[31m"
	sGreen  = "\x1b[32m"
	sYellow = "\x1b[33m"
	sCyan   = "\x1b[36m"
	sReset  = "\x1b[0m"
)

// WriteText prints t for a terminal: each turn's prompt, then what the
// agent did, subagents indented under the call that spawned them. Every
// string of the transcript (text, tool kinds and statuses, mode ids, stop
// reasons, session ids) is made visible (internal/console), never
// interpreted: every line goes through visible before it is styled.
func WriteText(w io.Writer, t *Transcript, cfg TextConfig) error {
	if cfg.Width == 0 {
		cfg.Width = 100
	}
	cfg.Width = max(cfg.Width, 40)
	p := &textPrinter{cfg: cfg}
	p.wrapped(0, sBold, "", fmt.Sprintf("%s (%s)", t.Name, t.Source))
	for _, e := range t.Errors {
		p.wrapped(0, sRed, "error: ", e)
	}
	if len(t.Turns) == 0 {
		p.line(1, sDim, "no prompt was sent")
	}
	for i, turn := range t.Turns {
		p.line(0, sBold, fmt.Sprintf("── turn %d", i+1))
		p.turn(1, turn)
	}
	if len(t.Calls) > 0 {
		p.wrapped(0, sDim, "", fmt.Sprintf("%d model call(s); acpsnap run -html FILE shows them", len(t.Calls)))
	}
	_, err := io.WriteString(w, p.sb.String())
	return err
}

type textPrinter struct {
	cfg TextConfig
	sb  strings.Builder
}

func (p *textPrinter) turn(depth int, t Turn) {
	if t.Prompt != "" {
		p.wrapped(depth, sBold, "› ", t.Prompt)
	}
	for _, it := range t.Items {
		p.item(depth, it)
	}
	if t.Error != "" {
		p.wrapped(depth, sRed, "error: ", t.Error)
	}
	if t.Stop != "" {
		p.line(depth, sDim, "stop: "+t.Stop)
	}
}

// item prints one item: a dispatch on its kind.
func (p *textPrinter) item(depth int, it Item) {
	switch it.Kind {
	case Message:
		p.wrapped(depth, "", "", it.Text)
	case Thought:
		p.wrapped(depth, sDim, "thinking: ", it.Text)
	case Replayed:
		p.wrapped(depth, sDim, "replayed › ", it.Text)
	case ToolCall:
		p.tool(depth, it.Tool)
	case Permission:
		a := it.Permission
		p.wrapped(depth, sYellow, "permission: ", fmt.Sprintf("%s [%s] → %s", a.Title, strings.Join(a.Options, " | "), orNone(a.Answer)))
	case Plan:
		p.line(depth, sCyan, "plan:")
		for _, e := range it.Plan {
			p.wrapped(depth+1, "", "", fmt.Sprintf("[%s] %s", e.Status, e.Content))
		}
	case Mode:
		p.line(depth, sCyan, "mode → "+it.Text)
	case Error:
		p.wrapped(depth, sRed, "error: ", it.Text)
	case Subagent:
		p.line(depth, sCyan, "subagent "+it.Turn.Session)
		p.turn(depth+1, *it.Turn)
	}
}

func (p *textPrinter) tool(depth int, tc *Tool) {
	style := sGreen
	if tc.Status != "completed" {
		style = sYellow
	}
	status := " [" + console.Line(orNone(tc.Status)) + "]"
	head := "tool " + console.Line(orDash(tc.Kind)) + " "
	room := p.cfg.Width - 2*depth - utf8.RuneCountInString(head+status)
	title := console.Line(prefix(tc.Title, room))
	if utf8.RuneCountInString(title) > room {
		title = cut(title, room-1) + "…"
	}
	p.segments(depth, segment{sCyan, head + title}, segment{style, status})
	if tc.Input != "" {
		p.line(depth+1, sDim, p.short("in:  ", tc.Input, depth+1))
	}
	if tc.Output != "" {
		p.line(depth+1, sDim, p.short("out: ", tc.Output, depth+1))
	}
	for _, it := range tc.Items {
		p.item(depth+1, it)
	}
}

// short is label and s on one line, cut to the width with s's size.
func (p *textPrinter) short(label, s string, depth int) string {
	room := p.cfg.Width - 2*depth - len(label)
	one := console.Line(prefix(s, room))
	if utf8.RuneCountInString(one) <= room {
		return label + one
	}
	note := fmt.Sprintf("… (%s)", size(len(s)))
	return label + cut(one, room-utf8.RuneCountInString(note)) + note
}

// wrapped prints label and text wrapped to the width, continuation lines
// indented under the text.
func (p *textPrinter) wrapped(depth int, style, label, text string) {
	room := p.cfg.Width - 2*depth - utf8.RuneCountInString(label)
	pad := strings.Repeat(" ", utf8.RuneCountInString(label))
	first := true
	for _, para := range strings.Split(console.Text(text), "\n") {
		for _, l := range wrap(para, room) {
			if first {
				p.line(depth, style, label+l)
				first = false
			} else {
				p.line(depth, style, pad+l)
			}
		}
	}
}

// line prints s, made visible, in style.
func (p *textPrinter) line(depth int, style, s string) {
	p.segments(depth, segment{style, s})
}

// segment is a piece of a line and its style.
type segment struct{ style, text string }

// segments prints one line of pieces, each made visible, then styled: no
// string of the transcript reaches the terminal but through visible.
func (p *textPrinter) segments(depth int, segs ...segment) {
	p.sb.WriteString(strings.Repeat("  ", depth))
	for _, s := range segs {
		p.sb.WriteString(p.styled(s.style, console.Line(s.text)))
	}
	p.sb.WriteByte('\n')
}

func (p *textPrinter) styled(style, s string) string {
	if !p.cfg.Color || style == "" {
		return s
	}
	return style + s + sReset
}

// wrap breaks s into lines of at most width runes, at spaces where it
// can; "" is one empty line. Each line looks at the next width+1 runes
// only, so wrapping is linear in the length of s.
func wrap(s string, width int) []string {
	width = max(width, 10)
	var out []string
	for {
		end := runeOffset(s, width)
		if end == len(s) {
			return append(out, s)
		}
		_, size := utf8.DecodeRuneInString(s[end:])
		at := strings.LastIndexByte(s[:end+size], ' ')
		if at <= 0 {
			out, s = append(out, s[:end]), s[end:]
			continue
		}
		out, s = append(out, s[:at]), s[at+1:]
	}
}

// runeOffset is where the rune after the first n of s starts (len(s) when
// s has no more).
func runeOffset(s string, n int) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// cut is the first n runes of s.
func cut(s string, n int) string { return s[:runeOffset(s, max(0, n))] }

// prefix is enough of s to show n runes of it made visible (a rune is at
// most four bytes, and escaping only lengthens it): the rest is never
// escaped or counted.
func prefix(s string, n int) string {
	if end := 4 * (max(0, n) + 1); len(s) > end {
		return s[:end]
	}
	return s
}

// size is a byte count for people: "912 B", "14.2 KB", "3.1 MB".
func size(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
