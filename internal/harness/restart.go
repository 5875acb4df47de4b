package harness

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/harness/client"
	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/harness/proc"
)

// launch starts one incarnation of the agent (the first, or the one a
// restartAgent step starts) in the run's cwd and private HOME, and opens
// the ACP connection to it.
func (r *run) launch() error {
	a, err := proc.Start(r.argv, r.roots.Cwd, r.env, r.cfg.Grace, r.cfg.OwnUserNS, r.fail)
	if err != nil {
		return infrastructure(fmt.Errorf("start agent %q: %w", r.cfg.Agent[0], err))
	}
	r.agent = a
	r.wire = client.NewWire(a.Stdin(), a.LineCount)
	cl := &client.Client{Cwd: r.roots.Cwd, Root: r.root, Aliases: r.cwdAliases, Terms: r.terms, Flow: a.Flow(), Fail: r.fail, Book: r.book}
	// The SDK starts reading at once; its first read waits until the logger
	// is set, or an early end of stdout would log through a racing field.
	ready := make(chan struct{})
	sdk := r.book.Answering(a.SDK(), r.wire)
	r.conn = acp.NewClientSideConnection(cl, r.wire, gatedReader{ready: ready, r: sdk})
	r.conn.SetLogger(slog.New(slog.DiscardHandler))
	close(ready)
	go func(conn *acp.ClientSideConnection) { // the connection ends when the tee closes the SDK's pipe, which it always does
		<-conn.Done()
		a.CloseSDK()
		sdk.Close()
	}(r.conn)
	return nil
}

// end shuts the current incarnation down, bounded (the agent's process
// group, its terminals, escaped processes), keeps its stdout and stderr,
// and reports what it did wrong while ending (its exit status only when
// nothing failed before: a failed step or run explains it).
func (r *run) end(failed bool) []error {
	a := r.agent
	eofWait := r.cfg.Grace
	if r.cfg.TermShutdown {
		eofWait = 0
	}
	ending, leftovers := a.Shutdown(eofWait)
	t := a.Times()
	r.shutdown = Shutdown{How: ending.String(), EOF: t.EOF, Term: t.Term, Group: t.Group, Leftovers: leftovers}
	r.terms.CloseAll()
	escaped := proc.Escapees(r.roots.Base, time.Now().Add(r.cfg.Grace))
	var errs []error
	if !failed && r.failure() == nil && a.WaitErr() != nil && ending == proc.ExitedOnEOF {
		errs = append(errs, fmt.Errorf("agent exited with %s after stdin was closed", a.ExitState()))
	}
	if ending != proc.ExitedOnEOF && !(r.cfg.TermShutdown && ending == proc.Terminated) {
		errs = append(errs, fmt.Errorf("agent did not exit within %s of stdin closing (%s); a corpus sets this grace with agent.grace in acpsnap.yml, a run with -grace", r.cfg.Grace, ending))
	}
	if leftovers {
		errs = append(errs, fmt.Errorf("the agent left processes running in its process group for longer than the grace of %s after it ended (%s; a corpus sets agent.grace in acpsnap.yml, a run -grace); the harness killed the group", r.cfg.Grace, a.ExitState()))
	}
	if len(escaped) > 0 {
		errs = append(errs, fmt.Errorf("processes of the run outlived it outside the process groups of the agent and its terminals (%s); the harness killed them", strings.Join(escaped, ", ")))
	}
	r.stdout, r.sent, r.incarnations = r.wireSoFar()
	r.stderr.WriteString(a.StderrText())
	return errs
}

// wireSoFar is the run's wire with the current incarnation's in it as far
// as it went: every stdout line, what the client sent and where each
// incarnation begins. Its slices are clipped, so that appending to one
// never writes into an array another holds; the lines of the first
// incarnation are the agent's own array, not a copy.
func (r *run) wireSoFar() (stdout [][]byte, sent []Sent, incarnations []int) {
	incarnations = append(slices.Clip(r.incarnations), len(r.stdout))
	sent = slices.Clip(r.sent)
	for _, s := range r.wire.Sent() {
		sent = append(sent, Sent{Line: s.Line, After: len(r.stdout) + s.After, Incarnation: r.restarts})
	}
	lines := slices.Clip(r.agent.StdoutLines())
	if len(r.stdout) == 0 {
		return lines, sent, incarnations
	}
	return append(slices.Clip(r.stdout), lines...), sent, incarnations
}

// restart ends the agent as at the end of a run and starts it again. What
// the ended incarnation did wrong fails the step; a native agent's replay
// report is checked for errors (calls left are the next incarnation's)
// and removed, so the last incarnation writes the one the run checks.
func (r *run) restart() error {
	if f := r.failure(); f != nil {
		return f
	}
	n := r.restarts + 1
	errs := r.end(false)
	if f := r.failure(); f != nil {
		errs = append([]error{f}, errs...)
	}
	if r.model == nil {
		errs = append(errs, r.restartReport()...)
	}
	if len(errs) > 0 {
		return fmt.Errorf("incarnation %d of the agent: %w", n, errors.Join(errs...))
	}
	r.restarts = n
	fmt.Fprintf(&r.stderr, "[acpsnap: agent restarted (incarnation %d)]\n", n+1)
	return r.launch()
}

func (r *run) restartReport() []error {
	rep, err := harvest.Report(r.roots.Sessions)
	if err != nil || rep == nil {
		if err != nil {
			return []error{err}
		}
		return nil
	}
	if len(rep.Errors) > 0 {
		return []error{harvest.CheckReport(&agentenv.Report{Errors: rep.Errors}, 0)}
	}
	if err := os.Remove(filepath.Join(r.roots.Sessions, agentenv.ReportFile)); err != nil {
		return []error{err}
	}
	return nil
}
