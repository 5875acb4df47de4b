// Package strictjson is acpsnap's one home of the JSON rules, and of the
// code that reads and writes JSON below encoding/json.
//
// Every JSON value acpsnap reads obeys two rules (docs/format.md, "JSON"):
// an object never repeats a key, at any depth, and arrays and objects nest
// at most MaxDepth deep. A repeated key is refused, never resolved. Check
// applies both rules to a document json.Valid accepted, and names the
// place of a violation:
//
//	if !json.Valid(b) { ... }
//	if err := strictjson.Check(b, "$"); err != nil {
//		return fmt.Errorf("%s:%d: %v", name, line(err.Off), err) // "$.a[1].b: duplicate key"
//	}
//
// Files people write (input.json, overrides, model files, event data) are
// decoded with Read or Parse. They find every value's byte offset and JSON
// path, so each error reads "file:line: $.path: message":
//
//	doc, v, err := strictjson.Read(f, "snapshots/cancel/input.json")
//
// JSONL is read line by line with NewScanner or Each, whose buffer grows
// to MaxLine: agents send large tool results. A record is written as one
// Marshal value plus "\n", in one Write.
//
// The readers that scan JSON themselves take their tokens from here:
// Space, StringEnd, ValueEnd and Find step through valid JSON; ScanString,
// ScanNumber and ScanLiteral decide the syntax of a token; Unquote,
// AppendQuote and AppendCanonical decode and write strings and documents
// exactly as encoding/json does, without reflection. docs/architecture.md
// ("Reading JSON") names those readers.
package strictjson
