// This file says what the JSON diff shows. JSONUnified makes line diffs of
// JSONL fixtures readable: a changed pair of lines that are both JSON
// objects is shown as the key paths that changed, not as two whole lines of
// several kilobytes. JSONLines does the same for one pair of lines.
//
//
//	~ json: 1 changed path, 3,708 bytes unchanged
//	~ $.data.tools[3].description
//	-   "…32 bytes unchanged…; directories end with a [-slash-]. path defaults to the working directory."
//	+   "…32 bytes unchanged…; directories end with a {+backslash+}. path defaults to the working directory."
//
// A "~ json:" line opens the pair; then, for each changed path in document
// order of a depth-first walk with object keys sorted, a "~ " line with its
// JSON path ($ is the line's object, .key a member, ["odd key"] a member
// whose name is not an identifier, [3] an element, [3→4] an element that
// moved), and the want side ("-") and got side ("+") indented. A member only
// in want has no "+" line, one only in got no "-" line. Array elements are
// aligned first, so an inserted element reads as one addition, not as every
// later element changed. Containers nested deeper than 32 levels are
// reported as one changed value.
//
// Two strings longer than 40 bytes are compared word by word (a word is a
// run of letters, digits and '_'; spaces and every other character are
// their own tokens): changed words are marked [-so-] on the want side and
// {+so+} on the got side (reverse video with Config.Color), Context words
// around each change are kept and longer unchanged runs are replaced by
// "…N bytes unchanged…". String values are shown as JSON literals in which
// every invisible character is escaped (\r, \t, \u200b, \x.. for bytes that
// are not UTF-8). Other values are shown compacted, cut after Elide bytes
// with "…N more bytes…".
//
// Lines that are not both JSON objects (or are equal as JSON but differ in
// bytes: key order, spacing, duplicate keys) are word-diffed as text, with
// control characters shown as control pictures (␉ for a tab, ␍ for a
// carriage return). In a unified diff, a removed line is paired only with
// an added line of the same "type" member (lines without one pair with each
// other), in order, so an inserted event does not shift the pairs after it;
// context lines longer than Elide are
// cut with "…N bytes unchanged…", and removed or added lines without a
// partner are shown whole up to 4×Elide.
//
// The whole output is capped at Config.MaxBytes: whole lines past the cap
// are left out and a last line says how many lines and bytes were, so a
// failure message stays readable whatever the input.
//
// Colour is never decided here: the caller sets Config.Color (a terminal,
// NO_COLOR unset).

package textdiff
