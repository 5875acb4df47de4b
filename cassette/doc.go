// Package cassette is the hash-chained NDJSON protocol that tool and
// subagent cassettes are written in (docs/cassettes.md is the contract).
// It knows frames, the chain, the trailer and publishing; what a body
// means belongs to a Kind, which cassette/tool and cassette/subagent
// supply.
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
// # Frames
//
// A cassette is UTF-8 lines, each ending in "\n", each one frame:
//
//	{"body":{…},"hash":"sha256:<64 hex>","prev":"sha256:<64 hex>","seq":N,"type":"…"}
//
// seq counts from 0 without gaps; prev is the hash of the frame before ("" for
// the first); hash is "sha256:" and the lowercase hex SHA-256 of the frame's
// canonical JSON without its hash member. The first frame is a header
// (type "header", body {format, kind, policy, version}: Format, the kind's
// name, the kind's policy object, Version); the last is the trailer (type
// "complete", body {frames, last}: the number of frames including the
// trailer, and the hash of the frame before it). Between them come the
// kind's body frames.
//
// Every line must be exactly its canonical JSON (see Canonical): keys
// sorted, no whitespace, numbers as written, strings as encoding/json
// writes them without HTML escaping. So duplicate keys at any depth are
// refused, a parsed frame re-serialises byte for byte (Frame.Marshal), and
// the hash is computed over the line's own bytes. The envelope, the header
// and the trailer are closed schemas; a Kind closes its policy and bodies
// (Decode helps).
//
// # Refusals
//
// Verify refuses, before anything is replayed, an empty or truncated file,
// a frame that is not canonical, a hash that does not match (one changed
// byte), a seq out of order (a frame dropped, duplicated or moved), a prev
// that breaks the chain, a header of another format or version or an
// unknown kind, a missing trailer, a trailer whose count or last hash
// disagrees, a frame after the trailer, and whatever the Kind refuses. An
// *Error names the file as given (an absolute path by its base name), the
// frame and the structural reason; it never quotes a line or a body.
//
// # Publishing
//
// Create opens <path>.partial with O_EXCL and refuses when the cassette or
// the partial exists. Frames are appended one Write each, serialised, and
// fsynced. Complete writes the trailer, closes the partial, links it to
// path (a link never replaces an existing file) and removes the partial.
// Close without Complete keeps the partial and publishes nothing.
//
// The chain detects damage and truncation; it is not a signature. Anyone who
// can rewrite the file can recompute every hash.
//
// # Speed
//
// The frame parser is a single allocation-light pass over each line
// (canon.go) rather than internal/jsonpos, whose token walk reads about
// 17 MB/s: verification must read at least 50 MB/s (BenchmarkVerify).
// Canonical, used when writing and for tool arguments, goes through
// internal/jsonpos.
package cassette
