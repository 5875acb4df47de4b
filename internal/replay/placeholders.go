// This file says how request placeholders are expanded in replayed model
// output (ExpandPlaceholders):
// a chunk that says {{fromRequest:<regex>}} is served with the first capture
// group of regex applied to the live request, so a recorded model can echo
// back a value that only exists at run time (a generated file name, a nonce).
//
// The happy path:
//
//	text, err := ExpandPlaceholders(`{"path":"{{fromRequest:"name":"([^"]+)"}}"}`, body)
//
// # Placeholder grammar
//
// A token is the literal opener "{{fromRequest:" followed by the regex and
// the closer "}}":
//
//	token  = "{{fromRequest:" regex "}}"
//	regex  = { "\" any-char | any-char-but-"}" | "}" }   (see below)
//
// The regex is read character by character. A backslash and the character
// after it always belong to the regex, so `\}` is a literal brace that never
// closes the token. A run of unescaped "}" characters of length n >= 2 ends
// the token: its first n-2 braces belong to the regex and the last two are
// the closer. So `{{fromRequest:a{2}}}` has the regex `a{2}`, and a regex
// that needs a literal "}}" writes it `\}\}` (or `\}}` before another
// character). A single "}" (as in `x{1,3}y`) belongs to the regex. An opener
// without a closer is an error. Tokens do not nest, and the text put in place
// of a token is never scanned again, so a request cannot inject a token.
//
// # Matching
//
// The regex is Go RE2 syntax (package regexp), applied to the whole request
// body as bytes; the first match's first capture group replaces the token,
// verbatim: no quoting is added, so a caller expanding tokens inside encoded
// JSON text chooses regexes whose capture needs no escaping there, or expands
// after decoding. A regex that does not compile, has no capture group, does
// not match, or whose first group takes no part in the match is an error that
// names the regex and shows a short excerpt of the request with control
// characters quoted. [FindPlaceholders] lists the tokens of a text without a request, for
// guards that check a fixture before any run.

package replay
