package jsondiff

import "github.com/acpsnap/acpsnap/internal/textdiff"

// Files is the readable diff of two versions of a fixture file: the line
// diff of textdiff.Files (labelled "want: wantName" and "got: gotName")
// rewritten by [Unified]. It is "" when the contents are equal.
func Files(wantName, gotName string, want, got []byte, cfg Config) string {
	d := textdiff.Files(wantName, gotName, want, got)
	if d == "" {
		return ""
	}
	return Unified(d, cfg)
}
