package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/acpsnap/acpsnap/internal/console"
)

// MaxValueBytes bounds what the HTML view embeds of one value (a tool's
// input or output, a request body, a diff, a stderr tail); the rest is
// left out and counted.
const MaxValueBytes = 16 << 10

// previewRunes is how much of a folded value its line shows.
const previewRunes = 72

// foldBytes is the size past which a value is folded (a <details> closed
// by default) under a line that says its size.
const foldBytes = 160

//go:embed report.html.tmpl
var reportTemplate string

//go:embed report.css
var reportCSS string

// page is the report's template, parsed when first needed: at start it
// would cost every acpsnap process (and the bundled agent) 0.7 ms.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"value":    value,
		"duration": func(d time.Duration) string { return d.Round(time.Millisecond).String() },
		"diff":     ParseDiff,
		"css":      func() template.CSS { return template.CSS(reportCSS) },
		"add":      func(a, b int) int { return a + b },
		"text":     func(s string) string { return console.Text(s) },
		"id":       anchor,
		"count":    count,
		"data":     data,
	}).Parse(reportTemplate))
})

// WriteHTML writes r as one self-contained HTML page: CSS inline, nothing
// fetched; the filter by status is radio buttons and CSS, long values are
// folded in <details> under their size. A small inline script searches
// the page (?q= fills the box); without scripts the page reads the same,
// without the search box. The report's data rides along, as JSON no
// browser runs (ReadHTML). Every string is made visible (internal/console)
// and capped (MaxValueBytes, MaxTextBytes, MaxItems, MaxCallsShown), so the
// page's size is bounded by the number of scenarios, not by what the
// agents wrote.
func WriteHTML(w io.Writer, r Page) error {
	if r.Title == "" {
		r.Title = "acpsnap report"
	}
	if err := page().Execute(w, r.shown()); err != nil {
		return fmt.Errorf("transcript: html: %w", err)
	}
	return nil
}

// Value is a value as the page shows it: capped at MaxValueBytes, with
// its size, and whether it is long enough to fold.
type Value struct {
	Text    string
	Preview string // its start on one line, for the line a folded value shows
	Size    string // "14.2 KB"
	Fold    bool
	Cut     string // "…3.1 MB more not shown"; "": whole
}

func value(s string) Value {
	v := Value{Text: console.Text(s), Size: size(len(s)), Fold: len(s) > foldBytes || strings.Count(s, "\n") > 3}
	v.Preview = console.Line(oneLine(s[:runeCutAt(s, min(len(s), 4*previewRunes))], previewRunes))
	if len(s) > MaxValueBytes {
		n := runeCutAt(s, MaxValueBytes)
		v.Text, v.Cut = console.Text(s[:n]), fmt.Sprintf("… %s more not shown", size(len(s)-n))
	}
	return v
}

// runeCutAt is the largest rune boundary at or before n in s.
func runeCutAt(s string, n int) int {
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return n
}

// anchor is the element id of a scenario's section.
func anchor(s Scenario) string {
	if s.Corpus != "" {
		return "s-" + s.Corpus + "/" + s.Name
	}
	return "s-" + s.Name
}

// count is how many scenarios of r have status.
func count(r Page, status string) int {
	n := 0
	for _, s := range r.Scenarios {
		if s.Status == status || status == "" {
			n++
		}
	}
	return n
}
