package transcript

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/visible"
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
// agent did, subagents indented under the call that spawned them. Text
// from the agent is made visible (internal/visible), never interpreted.
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
	status := " [" + orNone(tc.Status) + "]"
	head := "tool " + orDash(tc.Kind) + " "
	room := p.cfg.Width - 2*depth - utf8.RuneCountInString(head+status)
	title := visible.Line(tc.Title)
	if utf8.RuneCountInString(title) > room {
		title = cut(title, room-1) + "…"
	}
	p.line(depth, sCyan, head+title+p.styled(style, status)+p.style(sCyan))
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
	one := visible.Line(s)
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
	for _, para := range strings.Split(visible.Text(text), "\n") {
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

func (p *textPrinter) line(depth int, style, s string) {
	p.sb.WriteString(strings.Repeat("  ", depth))
	p.sb.WriteString(p.styled(style, s))
	p.sb.WriteByte('\n')
}

func (p *textPrinter) styled(style, s string) string {
	if !p.cfg.Color || style == "" {
		return s
	}
	return style + s + sReset
}

func (p *textPrinter) style(style string) string {
	if !p.cfg.Color {
		return ""
	}
	return style
}

// wrap breaks s into lines of at most width runes, at spaces where it
// can; "" is one empty line.
func wrap(s string, width int) []string {
	width = max(width, 10)
	var out []string
	for utf8.RuneCountInString(s) > width {
		r := []rune(s)
		at := strings.LastIndexByte(string(r[:width+1]), ' ')
		if at <= 0 {
			at = len(string(r[:width]))
			out, s = append(out, s[:at]), s[at:]
			continue
		}
		out, s = append(out, s[:at]), s[at+1:]
	}
	return append(out, s)
}

// cut is the first n runes of s.
func cut(s string, n int) string {
	r := []rune(s)
	return string(r[:max(0, min(n, len(r)))])
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
