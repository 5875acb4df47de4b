package textdiff

// JSONFiles is the readable diff of two versions of a fixture file: the line
// diff of Files (labelled "want: wantName" and "got: gotName")
// rewritten by [JSONUnified]. It is "" when the contents are equal.
func JSONFiles(wantName, gotName string, want, got []byte, cfg Config) string {
	d := Files(wantName, gotName, want, got)
	if d == "" {
		return ""
	}
	return JSONUnified(d, cfg)
}
