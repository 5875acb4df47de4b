package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// serveModel runs `acpsnap serve-model -dialect D FILE`: the scripted
// model of FILE (the format of `new -model`) on 127.0.0.1 in dialect D,
// its base URL on stdout, until SIGINT or SIGTERM; then what each script
// served and left, and any REPLAY error, on stderr. Exit 1 when the
// server answered a REPLAY error.
func (e *env) serveModel(args []string) int {
	fs := e.flags("serve-model")
	dialect := fs.String("dialect", replay.Dialects[0], "model dialect: "+strings.Join(replay.Dialects, ", "))
	requests := fs.String("requests", "", "at exit, write every request received to this JSONL `file` (method, path, header, body)")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: acpsnap serve-model [-dialect D] [-requests FILE] FILE")
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return e.exit(err)
	}
	if fs.NArg() != 1 {
		return e.exit(usagef("serve-model: want one model file, got %d arguments", fs.NArg()))
	}
	cfg, _, err := readModel("serve-model", fs.Arg(0))
	if err != nil {
		return e.exit(err)
	}
	cfg.Dialect = *dialect
	srv, err := replay.NewServer(cfg)
	if err != nil {
		return e.exit(usagef("serve-model: %v", err))
	}
	fmt.Fprintln(e.stdout, srv.URL())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	<-ctx.Done()
	stop()
	srv.Close()
	if *requests != "" {
		if err := writeRequests(*requests, srv.Requests()); err != nil {
			fmt.Fprintln(e.stderr, "acpsnap: serve-model:", err)
			return ExitInternal
		}
	}
	r := srv.Report()
	for _, f := range r.Fixtures {
		fmt.Fprintf(e.stderr, "%s: served %d, left %d\n", f.Fixture, f.Served, f.Left)
	}
	for _, msg := range r.Errors {
		fmt.Fprintln(e.stderr, console.Text(msg)) // it may quote what a client sent
	}
	if len(r.Errors) > 0 {
		return ExitFailed
	}
	return ExitOK
}

// writeRequests writes one JSON line per request: method, path, header
// and body (as JSON when it is JSON, else as a string).
func writeRequests(path string, reqs []replay.RecordedRequest) error {
	var out []byte
	for _, r := range reqs {
		body := json.RawMessage(r.Body)
		if !json.Valid(r.Body) {
			body, _ = json.Marshal(string(r.Body))
		}
		line, err := strictjson.Marshal(map[string]any{"method": r.Method, "path": r.Path, "header": r.Header, "body": body})
		if err != nil {
			return fmt.Errorf("write requests: %w", err)
		}
		out = append(out, line...)
	}
	if err := safefile.Write(path, out, 0o644); err != nil {
		return fmt.Errorf("write requests: %w", err)
	}
	return nil
}
