// Package textdiff renders line-based unified diffs for failure messages,
// in bounded time and memory whatever the inputs: the edit script is
// go-internal's anchored diff (github.com/rogpeppe/go-internal/diff,
// O(n log n) time, linear space; a plain Myers diff needs memory that grows
// with the square of the changes), and what is shown is capped.
//
//	fmt.Print(textdiff.Unified("want: a.jsonl", "got: live", want, got))
//	// --- want: a.jsonl
//	// +++ got: live
//	// @@ -1,3 +1,3 @@
//	//  a
//	// -b
//	// +b\r
//	//  c
//
// Lines are shown through package console, so a "\r" (a CRLF fixture),
// an escape sequence or invalid UTF-8 is visible, never acted on by the
// terminal. At most MaxLines lines of diff are shown and each at most
// MaxLineBytes bytes; what was left out is counted in a last line,
// "… 9,412 more diff lines not shown (-5,000 +5,000 in all)".
//
// Within a changed line, [Words] is the word diff (the spans both sides
// share and the spans that changed, for a caller to mark as it likes) and
// [Changed] renders it as text: the changed words marked [-so-] and {+so+}
// with a few words of context, the long unchanged runs cut.
//
// On JSONL fixtures, JSONUnified rewrites such a diff so that a changed
// pair of JSON objects shows the key paths that changed, not two whole
// lines of several kilobytes (jsondoc.go says what it shows):
//
//	out := textdiff.JSONUnified(textdiff.Unified("want", "got", want, got), textdiff.Config{Color: onTerminal})
package textdiff
