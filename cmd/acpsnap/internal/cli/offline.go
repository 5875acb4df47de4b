package cli

// run -offline: the whole run in a loopback-only network namespace
// (internal/sandbox). The acpsnap process re-executes itself there, marked
// by offlineEnv; the inside prepares the namespace, runs, and reports the
// outbound attempts (lookups and connects, all refused) to stderr.
// Variables that look secret reach the inside through a pipe, never its
// /proc/<pid>/environ. record -offline keeps a way out for the model
// proxy alone (sandbox.Config.Dial): the agent reaches nothing but
// acpsnap's proxy, and the proxy the live model.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/sandbox"
	"github.com/acpsnap/acpsnap/internal/secrets"
)

// offlineEnv marks the re-executed acpsnap that runs inside the namespace.
const offlineEnv = "ACPSNAP_OFFLINE_INSIDE"

// offline runs inner, the whole run, in a loopback-only network namespace.
// Outside the namespace it re-executes argv (the process's own command
// line, os.Args) inside a new one and returns the exit code of that
// process; inside, it prepares the namespace, runs inner and reports the
// outbound attempts the run made.
// With dial, the model proxy inside gets a way out to the live model
// (sandbox.Config.Dial; offlineSettings hands it to the harness).
func (e *env) offline(argv []string, dial bool, inner func() int) int {
	return e.offlineThen(argv, dial, inner, func(a sandbox.Attempts, code int) int {
		reportAttempts(e.stderr, a)
		return code
	})
}

// offlineThen is offline with what happens after inner in the namespace:
// then gets the attempts the namespace saw, once it stopped watching, and
// inner's exit code, and returns the exit code.
func (e *env) offlineThen(argv []string, dial bool, inner func() int, then func(a sandbox.Attempts, code int) int) int {
	if os.Getenv(offlineEnv) != "" {
		return e.insideOffline(inner, then)
	}
	var plain, hidden []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); secrets.LooksSecret(name) {
			hidden = append(hidden, kv)
		} else {
			plain = append(plain, kv)
		}
	}
	code, err := sandbox.Reexec(sandbox.Config{Args: argv, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
		Env: append(plain, offlineEnv+"=1"), Hidden: hidden, Dial: dial})
	if errors.Is(err, sandbox.ErrUnavailable) {
		return e.exit(&usageError{"-offline: " + err.Error()})
	}
	if err != nil {
		return e.exit(err)
	}
	return code
}

// insideOffline is the namespace side: namespace prepared, inner run,
// the attempts handed to then.
func (e *env) insideOffline(inner func() int, then func(a sandbox.Attempts, code int) int) int {
	os.Unsetenv(offlineEnv)
	sb, err := sandbox.Enter()
	if err != nil {
		return e.exit(fmt.Errorf("-offline: %w", err))
	}
	e.environ, e.sandbox = os.Environ(), sb // the environment with the hidden variables
	code := inner()
	sb.Close()
	return then(sb.Attempts(), code)
}

// maxAttempts bounds the names and the addresses the offline summary
// lists; the rest are counted.
const maxAttempts = 20

// reportAttempts prints the outbound attempts of the run: names looked up and
// addresses connected to, sorted, counted (a name asked for A and AAAA
// counts twice), the first maxAttempts of each, made visible (an agent
// chooses the names it looks up), then how many more.
func reportAttempts(w io.Writer, a sandbox.Attempts) {
	if a.None() {
		fmt.Fprintln(w, "acpsnap: offline: no outbound attempts")
		return
	}
	fmt.Fprintln(w, "acpsnap: offline: outbound attempts, all refused:")
	for _, part := range []struct {
		title string
		cs    []sandbox.Count
	}{{"lookups (queries, name)", a.Lookups}, {"connects (attempts, address)", a.Connects}} {
		if len(part.cs) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s:\n", part.title)
		for _, c := range part.cs[:min(len(part.cs), maxAttempts)] {
			fmt.Fprintf(w, "  %6d %s\n", c.N, console.Line(c.Key))
		}
		if more := part.cs[min(len(part.cs), maxAttempts):]; len(more) > 0 {
			n := 0
			for _, c := range more {
				n += c.N
			}
			fmt.Fprintf(w, "  %6d more, of %d others\n", n, len(more))
		}
	}
}
