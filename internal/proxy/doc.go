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
//	log, err := httplog.Compose(ctx, rep.Exchanges, header, pins)
//
// Replay it:
//
//	h, xs, err := httplog.Decompose(log, "snapshots/x/session.jsonl", pins)
//	p, err := proxy.Start(ctx, proxy.Config{Dialect: h.Dialect, Exchanges: xs,
//		Normalize: norm, Expand: expand, Ignore: []string{"/prompt_cache_key"}})
//	// run the agent
//	p.Close()
//	if err := p.Report().Err(); err != nil { … } // drifts, unconsumed calls
//
// The proxy speaks every dialect of the dialect table
// (internal/wire/dialect) and asks it what it needs: the real key's
// header, where a request's conversation lives and the error body of its
// own answers. Routing, what record keeps, how replay matches a request
// by fingerprint, the drift report and the overrides are specified in
// docs/format.md ("Composed log"). Config.OnHang tells the harness when a
// hangAfter override has stalled (a promptAndCancel step's cancel point);
// Config.Numbering matches racing requests whose own new values were
// numbered in another order than recorded; SSE framing is internal/wire/sse's, which keeps every byte.
package proxy
