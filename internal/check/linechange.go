package check

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/textdiff"
)

// lineChange is the change the differing files show, as a key two
// scenarios share when they changed the same way: for each file, the
// lines it lost and the lines it gained, each set once and sorted,
// wherever they are. files: the differing files' names. "" when a file
// differs in nothing but order.
func lineChange(want, got *scenario.Transcript, diffs []fileDiff) (key string, files []string) {
	var b strings.Builder
	for _, d := range diffs {
		w, g := fileOf(want, d.name), fileOf(got, d.name)
		lost, gained := changedLines(w, g)
		if len(lost)+len(gained) == 0 {
			return "", nil
		}
		fmt.Fprintf(&b, "%s\n", d.name)
		for _, l := range lost {
			fmt.Fprintf(&b, "-%s\n", l)
		}
		for _, l := range gained {
			fmt.Fprintf(&b, "+%s\n", l)
		}
		files = append(files, d.name)
	}
	return b.String(), files
}

// fileOf is the content of the fixture file name in t.
func fileOf(t *scenario.Transcript, name string) []byte {
	if name == scenario.StdoutFile {
		return t.Stdout
	}
	for i, l := range t.Logs {
		if scenario.LogName(i) == name {
			return l
		}
	}
	return nil
}

// changedLines are the distinct lines an edit script from want to got
// deletes and inserts, sorted.
func changedLines(want, got []byte) (lost, gained []string) {
	w, g := splitLines(want), splitLines(got)
	seen := map[string]bool{}
	for _, e := range textdiff.Seq(len(w), len(g), func(i, j int) bool { return bytes.Equal(w[i], g[j]) }) {
		switch {
		case e.Kind == '-' && !seen["-"+string(w[e.A])]:
			seen["-"+string(w[e.A])] = true
			lost = append(lost, string(w[e.A]))
		case e.Kind == '+' && !seen["+"+string(g[e.B])]:
			seen["+"+string(g[e.B])] = true
			gained = append(gained, string(g[e.B]))
		}
	}
	slices.Sort(lost)
	slices.Sort(gained)
	return lost, gained
}

// splitLines are the lines of b, without their "\n", as slices of b: a
// large fixture is not copied to be compared.
func splitLines(b []byte) [][]byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) == 0 {
		return nil
	}
	return bytes.Split(b, []byte("\n"))
}
