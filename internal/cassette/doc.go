// Package cassette is the hash-chained NDJSON protocol that tool and
// subagent cassettes are written in. docs/cassettes.md ("The protocol")
// specifies its frames, canonical JSON, header, trailer, refusals and
// publishing. The package knows frames, the chain, the trailer and
// publishing. What a body means belongs to a Kind, which cassette/tool and
// cassette/subagent supply. A Kind closes its policy and its bodies, and
// Decode helps it do so.
//
// Recording:
//
//	w, err := cassette.Create("tools.cassette.jsonl", tool.Kind(), policy)
//	// … w.Append("call/start", body) for each event, from any goroutine …
//	err = w.Complete() // trailer, then create-only publish; w.Close() instead keeps the .partial
//
// Replaying starts by verifying the whole file:
//
//	f, err := cassette.ReadFile("tools.cassette.jsonl", tool.Kind())
//	// f.Frames are the body frames, in order; nothing is trusted before err == nil
//
// A refusal is an *Error. It names the file as given, the frame and the
// structural reason, and never quotes a line or a body. An absolute path is
// named by its base name. Canonical and Frame.Marshal write the canonical
// form. The frame parser makes one allocation-light pass per line
// (canon.go), rather than internal/strictjson's token walk, because
// verification must read at least 50 MB/s (BenchmarkVerify).
package cassette
