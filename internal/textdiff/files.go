package textdiff

import "bytes"

// Files is a unified diff of two files' contents labelled "want: wantName"
// and "got: gotName", ending in a newline, or "" when they are equal.
func Files(wantName, gotName string, want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	return unified("want: "+wantName, "got: "+gotName, want, got) + "\n"
}
