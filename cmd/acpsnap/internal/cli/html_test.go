package cli

import (
	"bytes"
	"context"
	"flag"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// screenshot is where TestHTMLReportInBrowser also copies its screenshot:
// go test ./internal/cli -run TestHTMLReportInBrowser -args -screenshot $PWD/docs/report.png
var screenshot = flag.String("screenshot", "", "copy the report's screenshot to `file`")

// browserPackage is the Debian package of the headless browser the HTML
// report is checked in.
const browserPackage = "chromium-headless-shell"

// TestHTMLReportInBrowser runs the bundled corpus with one broken fixture,
// writes the HTML report, loads it in headless Chromium and checks what a
// person would see in the rendered page, then takes a screenshot.
func TestHTMLReportInBrowser(t *testing.T) {
	browser, err := exec.LookPath(browserPackage)
	if err != nil {
		t.Skipf("no headless browser: install Debian's %s (apt-get install %s) to check the HTML report", browserPackage, browserPackage)
	}
	src, err := filepath.Abs("../../../../snapshots")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // the corpus is ./snapshots, as in the repository
	corpus := "snapshots"
	if err := os.CopyFS(corpus, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	// The broken fixture: the fixture says dog, the agent (replaying the
	// recorded model) says cat.
	breakFixture(t, filepath.Join(corpus, "subagent-spawn", "stdout.expected.jsonl"), "feed the cat.\"", "feed the dog.\"")
	report := filepath.Join(t.TempDir(), "report.html")
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, environ: os.Environ()}
	if code := e.main([]string{"run", "-parallel", "2", "-html", report}); code != ExitFailed {
		t.Fatalf("run = exit %d, want %d (one broken fixture)\n%s%s", code, ExitFailed, stdout.String(), stderr.String())
	}
	info, err := os.Stat(report)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > reportBound {
		t.Errorf("the report of the bundled corpus is %d bytes, over the %d docs/format.md states", info.Size(), reportBound)
	}
	// The three browser runs are independent: the page, the page with a
	// search, a screenshot; they run at once.
	png := filepath.Join(t.TempDir(), "report.png")
	var dom, searched string
	var wg sync.WaitGroup
	for _, r := range []struct {
		out  *string
		page string
		args []string
	}{
		{&dom, report, []string{"--dump-dom"}},
		{&searched, report + "?q=FEED+the+Cat", []string{"--dump-dom"}},
		{nil, report, []string{"--screenshot=" + png, "--window-size=1200,2000", "--hide-scrollbars"}},
	} {
		profile := t.TempDir()
		wg.Go(func() {
			out := render(t, browser, profile, r.page, r.args...)
			if r.out != nil {
				*r.out = out
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	checkReport(t, dom, corpus)
	checkSearch(t, searched)
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("screenshot %s: not a PNG (%v)", png, err)
	} else if *screenshot != "" {
		if err := os.WriteFile(*screenshot, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// reportBound is the size the HTML report of the bundled corpus stays
// under (docs/format.md, "Transcripts").
const reportBound = 200 << 10

func breakFixture(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s: no %q to break", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// render runs the headless browser on the page, offline in spirit (no
// network features, the fresh profile folder profile), and returns its
// stdout; a failed run is an error of t (render may run in a goroutine).
func render(t *testing.T, browser, profile, page string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, browser, append(append(flags, args...), "file://"+page)...)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

var (
	sectionRE = regexp.MustCompile(`(?s)<section class="scenario (\w+)" id="s-([^"]+)">(.*?)</section>`)
	tagRE     = regexp.MustCompile(`<[^>]*>`)
	markRE    = regexp.MustCompile(`<mark class="(del|ins)">([^<]*)</mark>`)
	// outsideRE finds what would make a page load or run something from
	// elsewhere (content text that merely names a URL is fine).
	outsideRE = regexp.MustCompile(`<link|<iframe|<img|<object|\bsrc="|href="[a-z]+:|url\(|@import`)
	scriptRE  = regexp.MustCompile(`<script[^>]*>`)
)

// checkSearch checks the report loaded with a search in its address
// (?q=, as the search box fills it), its DOM dom: what stays shown is the
// scenarios whose page text holds the words, in the summary and below it.
func checkSearch(t *testing.T, dom string) {
	t.Helper()
	shown := map[string]bool{}
	for _, m := range sectionRE.FindAllStringSubmatch(dom, -1) {
		shown[m[2]] = true
	}
	hidden := regexp.MustCompile(`<section class="scenario \w+ miss" id="s-([^"]+)">`).FindAllStringSubmatch(dom, -1)
	if d := len(shown) + len(hidden); len(shown) != 1 || !shown["subagent-spawn"] || d < 40 {
		t.Errorf("searching \"FEED the Cat\" shows %v and hides %d of %d; want subagent-spawn alone shown", shown, len(hidden), d)
	}
	if rows := strings.Count(dom, `<tr class="row `) - strings.Count(dom, ` miss"><td>`); rows != 1 {
		t.Errorf("searching \"FEED the Cat\" leaves %d summary rows, want 1", rows)
	}
	if !strings.Contains(dom, `<span id="search-count">1 of `) {
		t.Errorf("the page does not say how many scenarios match")
	}
}

// text is what a DOM fragment reads as: tags dropped, entities decoded,
// white space runs made one space.
func text(fragment string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(fragment, " "))), " ")
}

// checkReport checks the rendered page: every scenario named, with its
// status; the transcript of text-turn; the failure's changed words and
// accept command; a tool call's title; a permission and its answer.
func checkReport(t *testing.T, dom, corpus string) {
	t.Helper()
	sections := map[string]string{}
	status := map[string]string{}
	for _, m := range sectionRE.FindAllStringSubmatch(dom, -1) {
		sections[m[2]], status[m[2]] = m[3], m[1]
	}
	names, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range names {
		if _, err := os.Stat(filepath.Join(corpus, d.Name(), "snapshot.yml")); err != nil {
			continue
		}
		if s, ok := sections[d.Name()]; !ok || !strings.Contains(text(s), d.Name()) {
			t.Errorf("the page has no section naming scenario %s", d.Name())
		}
	}
	wants := []struct{ scenario, text string }{
		{"text-turn", "user Say hello in five words."},
		{"text-turn", "agent Hello there, nice to meet you!"},
		{"text-turn", "stop: end_turn"},
		{"subagent-spawn", "Accept with: acpsnap update -run '^subagent-spawn$'"},
		{"subagent-spawn", "Transcript what the run produced"},
		{"subagent-spawn", "think Task: read notes completed"},
		{"subagent-spawn", "subagent {{session:2}} user Read notes.txt and report its content."},
		{"permission-approved", "edit Write done.txt completed"},
		{"permission-approved", "permission Write done.txt Allow once Always allow Reject Always reject answer: Allow once"},
		{"permission-rejected", "answer: Reject"},
	}
	for _, w := range wants {
		if got := text(sections[w.scenario]); !strings.Contains(got, w.text) {
			t.Errorf("section %s does not read %q; it reads:\n%s", w.scenario, w.text, got)
		}
	}
	if status["subagent-spawn"] != "failed" || status["text-turn"] != "passed" {
		t.Errorf("status: subagent-spawn %q, text-turn %q; want failed, passed", status["subagent-spawn"], status["text-turn"])
	}
	marks := map[string]bool{}
	for _, m := range markRE.FindAllStringSubmatch(sections["subagent-spawn"], -1) {
		marks[m[1]+" "+m[2]] = true
	}
	if !marks["del dog"] || !marks["ins cat"] {
		t.Errorf("the diff marks %v; want the fixture's dog marked deleted and the run's cat inserted", marks)
	}
	if m := outsideRE.FindString(dom); m != "" {
		t.Errorf("the page holds %q: it must need nothing from outside itself", m)
	}
	if scripts := scriptRE.FindAllString(dom, -1); len(scripts) != 2 || scripts[0] != "<script>" || scripts[1] != `<script type="application/json" id="acpsnap-report">` {
		t.Errorf("the page's scripts are %q; want the inline search and the report's data, nothing else", scripts)
	}
}
