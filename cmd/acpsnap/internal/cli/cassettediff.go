package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
)

const cassetteDiffUsage = `usage: acpsnap cassette diff A B [-json] [-show-calls]

Compares two subagent cassettes call by call, aligned on (parent key,
parent-context fingerprint, request fingerprint, occurrence). Metadata
only: never a prompt, a result or an error text. Exit 0 equivalent, 1
different or not safely comparable, 2 usage, read or format error.
`

// cassetteDiff is "acpsnap cassette diff A B [-json] [-show-calls]". Flags
// may come before, between or after the two files. Its exit codes are the
// command's (docs/format.md, "Command line"): a difference fails like a
// scenario (1), a bad command line or cassette is a usage or fixture error
// (2), output that cannot be written is internal (3).
func (e *env) cassetteDiff(args []string) int {
	fs := e.flags("cassette diff")
	fs.Usage = func() { io.WriteString(fs.Output(), cassetteDiffUsage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print the report as JSON")
	showCalls := fs.Bool("show-calls", false, "list every aligned call, the same ones too")
	files, err := interleaved(fs, args)
	if err == nil && len(files) != 2 {
		err = usagef("cassette diff: want two cassettes, got %d\n%s", len(files), cassetteDiffUsage)
	}
	if err != nil {
		return e.exit(err)
	}
	var cs [2]*subagent.Cassette
	for i, f := range files {
		if cs[i], err = subagent.Load(f); err != nil {
			return e.exit(usagef("cassette diff: %s", subagent.Escape(err.Error())))
		}
	}
	r := subagent.Diff(cs[0], cs[1])
	if *asJSON {
		err = writeDiffJSON(e.stdout, r, *showCalls)
	} else {
		err = writeDiffHuman(e.stdout, cs[0].Name, cs[1].Name, r, *showCalls)
	}
	if err != nil {
		return e.exit(fmt.Errorf("cassette diff: write: %w", err))
	}
	if r.Equivalent() {
		return ExitOK
	}
	return ExitFailed
}

func writeDiffJSON(w io.Writer, r subagent.Report, showCalls bool) error {
	out := struct {
		Equivalent bool `json:"equivalent"`
		subagent.Report
	}{r.Equivalent(), r}
	if !showCalls {
		out.Calls = nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeDiffHuman prints one line per finding; every cassette-derived
// string goes through subagent.Escape.
func writeDiffHuman(w io.Writer, a, b string, r subagent.Report, showCalls bool) error {
	var sb strings.Builder
	verdict := "equivalent"
	switch {
	case !r.Comparable:
		verdict = "not safely comparable"
	case !r.Equivalent():
		verdict = "different"
	}
	fmt.Fprintf(&sb, "%s vs %s: %s\n", subagent.Escape(a), subagent.Escape(b), verdict)
	for _, s := range r.NotComparable {
		fmt.Fprintf(&sb, "not comparable: %s\n", subagent.Escape(s))
	}
	for _, s := range r.PolicyDrift {
		fmt.Fprintf(&sb, "policy drift: %s\n", subagent.Escape(s))
	}
	calls := r.Changes
	if showCalls {
		calls = r.Calls
	}
	for _, c := range calls {
		fmt.Fprintf(&sb, "%-16s %s%s\n", c.Change, subagent.Escape(c.Key), callDetail(c, showCalls))
	}
	fmt.Fprintf(&sb, "%d calls aligned, %d changed\n", len(r.Calls), len(r.Changes))
	_, err := io.WriteString(w, sb.String())
	return err
}

func callDetail(c subagent.Call, showCalls bool) string {
	var d []string
	switch c.Change {
	case subagent.ChangeBoundary:
		d = append(d, c.From+" → "+c.To)
	case subagent.ChangeOutcome:
		d = append(d, c.From+": "+strings.Join(c.Parts, ", "))
	case subagent.ChangeAdded:
		d = append(d, c.To)
	case subagent.ChangeRemoved:
		d = append(d, c.From)
	case subagent.ChangeSame:
		d = append(d, c.From)
	}
	if showCalls && c.TimingDeltaMillis != 0 {
		d = append(d, fmt.Sprintf("timing %+dms (information only)", c.TimingDeltaMillis))
	}
	return " (" + subagent.Escape(strings.Join(d, "; ")) + ")"
}
