// Package proxy stands between any ACP agent and its model, over HTTP: it
// records the model traffic once, through the real upstream, and replays
// it offline, so that an agent acpsnap did not write is tested unchanged.
// The harness starts one proxy per scenario run and hands the agent its
// URL and placeholder key; the agent never holds a real key.
//
// Record, then compose the session log:
//
//	p, err := proxy.Start(ctx, proxy.Config{
//		Mode: proxy.Record, Dialect: "openai-responses",
//		Upstream: "https://api.openai.com/v1", Key: key,
//		Normalize: norm, // live values → tokens
//	})
//	// run the agent with {{model.url}} = p.URL(), {{model.key}} = p.Key()
//	p.Close()
//	rep := p.Report()
//	log, err := sessionlog.Compose(rep.Exchanges, header, pins)
//
// Replay it:
//
//	h, xs, err := sessionlog.Decompose(log, "snapshots/x/session.jsonl", pins)
//	p, err := proxy.Start(ctx, proxy.Config{Dialect: h.Dialect, Exchanges: xs,
//		Normalize: norm, Expand: expand, Ignore: []string{"/prompt_cache_key"}})
//	// run the agent
//	p.Close()
//	if err := p.Report().Err(); err != nil { … } // drifts, unconsumed calls
//
// # Routing
//
// The proxy listens on 127.0.0.1 on a free port. Its URL carries a per-run
// nonce (http://127.0.0.1:PORT/<nonce>); any path below it is a model call
// ("/responses", "/v1/messages", "/v1/messages/count_tokens?beta=true", a
// GET of "/models"), kept with that path; any other path is 404. A HEAD
// below the nonce is a reachability probe, not a model call (Claude Code
// sends one to its base URL at session start): it is answered 200 with no
// body, in both modes, never forwarded, counted or kept.
//
// # Dialects
//
// Every entry of the dialect table (llmreplay/wire/dialect). The proxy
// needs little of a dialect, and asks the table: the real key's header
// (the agent's own auth headers are dropped), where a request's
// conversation lives, for the nearest-request search, and the dialect's
// error body (its codec's ErrorBody), for its own answers. Those are marked:
// header ErrorHeader ("X-Acpsnap-Error": "request drift", "override",
// "upstream", "normalize") and a message starting "acpsnap: ". A drift
// answers 400 with "x-should-retry: false", which both SDK families
// treat as final: the agent fails the turn at once instead of retrying.
// SSE framing is llmreplay/wire/sse's, which keeps every byte.
//
// # Record
//
// Each request goes to Config.Upstream plus its path below the nonce,
// with the agent's headers minus hop-by-hop and secret ones, and the real
// key. The upstream's status and headers reach the agent at once; an SSE
// stream (text/event-stream) is passed through byte for byte and flushed
// at the end of every event, so time to first byte is the upstream's;
// any other body is passed whole. Normalization of the kept copy happens
// after the stream. Kept per exchange: method, path, the allowlisted
// headers (DefaultRequestHeaders, DefaultResponseHeaders, plus Config's),
// the body, the status, each SSE event (event, id, data) or the body, and
// how it ended when it did not complete (sessionlog.EndDisconnect, EndHang,
// EndCancel). Authorization, x-api-key and the like are never kept, and
// the key is never part of an error. An unreachable upstream answers 502,
// marked final ("x-should-retry: false") and reported in Report.Errors.
//
// # Replay
//
// Each request is normalized (Config.Normalize), its Ignore parts dropped
// (JSON pointers into the body, "header:NAME"), canonicalized (decoded,
// object keys sorted) and fingerprinted: SHA-256 of method, path, kept
// headers and body. It takes the next unconsumed recorded exchange with
// that fingerprint, in call order within the group, so concurrent
// conversations (subagents) replay the same in any arrival order. The
// recorded status, headers and events are served, each event's data
// passed through Config.Expand (tokens → live values) and flushed.
//
// A request that matches nothing is a Drift: the agent gets the dialect's
// 400 above, and the Report names the nearest recorded call (same method
// and path, longest shared conversation prefix, same length, fewest
// changes) and every JSON path that differs:
//
//	request drift: POST /responses (request 3) matches no recorded exchange; nearest recorded call 3 differs at:
//	  $.input[2].content[0].text: recorded "list the files", request "list all files"
//
// A drift is a changed request; only re-recording accepts it
// (Report.RequestDrift), never refreshing the responses. Recorded calls
// never requested are Report.Unconsumed.
//
// # Overrides
//
// An override file (replay.override.json) replaces exchanges by call
// number — the recorded call in Replay, the N-th request to arrive in
// Record:
//
//	{"patches":[
//	  {"call":3,"status":429,"headers":{"retry-after":"0"},"body":{"error":{"message":"slow down"}}},
//	  {"call":4,"disconnectAfter":2},
//	  {"call":5,"hangAfter":1}
//	]}
//
// status answers that HTTP status (100–599) with the optional headers and
// JSON body (default: the dialect's error body; content-type
// application/json; ErrorHeader "override") instead of the recording (or, in Record, instead of
// asking the upstream). disconnectAfter K sends the first K events, then
// breaks the connection (K 0 on a non-streamed answer: before the
// status). hangAfter K sends the first K events, then stalls until the
// agent gives up or the proxy closes; once the K events are flushed,
// Config.OnHang(call) is called, which is how a promptAndCancel step knows
// that "the model is streaming". A non-streamed body counts as one event.
// Each patch has call (from 1) and exactly one of status, disconnectAfter,
// hangAfter; headers and body go with status only; a call is patched at
// most once; in Replay a call beyond the recording is an error. Decoding
// is strict (unknown keys, duplicate keys, wrong types are errors with
// file:line: $.path).
package proxy
