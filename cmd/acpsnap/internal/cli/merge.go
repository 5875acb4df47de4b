package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/report"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

const reportUsage = "usage: acpsnap report merge [-dir DIR] -o FILE REPORT...\n"

// reportCmd implements report: report merge writes one HTML report of the
// reports of several runs (the shards of a corpus, the corpora of a
// module): HTML reports (-html, ACPSNAP_HTML) and -json outputs.
func (e *env) reportCmd(args []string) int {
	if len(args) == 0 || args[0] != "merge" {
		return e.exit(usagef("report: unknown or missing subcommand\n%s", reportUsage))
	}
	fs := e.flags("report merge")
	out := fs.String("o", "", "write the merged HTML report to `file`")
	dir := fs.String("dir", "", "the corpus `folder` of -json outputs, whose fixtures show their transcripts (default: as run finds it)")
	if err := parse(fs, args[1:]); err != nil {
		return e.exit(err)
	}
	if *out == "" || fs.NArg() == 0 {
		return e.exit(usagef("report merge: want -o FILE and at least one report\n%s", reportUsage))
	}
	var reports []report.Page
	for _, file := range fs.Args() {
		r, err := e.readReport(file, dir)
		if err != nil {
			return e.exit(err)
		}
		reports = append(reports, r)
	}
	merged := report.Merge(reports...)
	if err := report.WriteFile(*out, merged, secrets.New(nil, e.scanEnviron()).Check); err != nil {
		return e.exit(err)
	}
	passed, failed := 0, 0
	for _, s := range merged.Scenarios {
		switch check.Status(s.Status) {
		case check.Passed:
			passed++
		case check.Failed, check.Unrecorded:
			failed++
		}
	}
	fmt.Fprintf(e.stdout, "%s: %d scenarios from %d reports (%d passed, %d failed)\n", *out, len(merged.Scenarios), len(reports), passed, failed)
	return ExitOK
}

// readReport reads one report to merge: an HTML report, or the lines of
// run -json, whose transcripts come from the fixtures of the corpus at
// *dir (found as run finds it when unset).
func (e *env) readReport(file string, dir *string) (report.Page, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return report.Page{}, usagef("report merge: %v", err)
	}
	if t := bytes.TrimSpace(b); bytes.HasPrefix(t, []byte("<")) {
		r, err := report.ReadHTML(b)
		if err != nil {
			return r, usagef("report merge: %s: %v", file, err)
		}
		return r, nil
	}
	if *dir, err = findCorpus(*dir, false); err != nil {
		return report.Page{}, err
	}
	var outs []check.Outcome
	accept := map[string]string{}
	err = strictjson.Each(bytes.NewReader(b), func(n int, line []byte) error {
		var o jsonOutcome
		if err := json.Unmarshal(line, &o); err != nil {
			return fmt.Errorf("%s:%d: not a line of acpsnap run -json: %v", file, n, err)
		}
		if o.Name == "" {
			return nil // the summary
		}
		outs = append(outs, check.Outcome{Name: o.Name, Status: check.Status(o.Status), Duration: time.Duration(o.DurationMs) * time.Millisecond, Reason: o.Reason, Diff: o.Diff, Wrote: o.Wrote})
		accept[o.Name] = o.Accept
		return nil
	})
	if err != nil {
		return report.Page{}, usagef("report merge: %v", err)
	}
	r := report.NewPage(*dir, outs, func(o check.Outcome) string { return accept[o.Name] })
	r.Corpus = report.CorpusName(*dir, "", nil)
	return r, nil
}
