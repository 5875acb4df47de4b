package cli

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/safefile"

	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/textdiff"
	"github.com/acpsnap/acpsnap/internal/treediff"
)

// review walks the pending files one at a time: it shows each one's diff
// against its fixture and reads one key: a accept, r reject, s skip,
// q quit. The files accepted of one scenario are installed together when
// review moves past it, through check.Accept: only if the scenario, with
// them, replays. It needs a terminal on stdin.
func (e *env) review(args []string) error {
	dir, re, err := e.pendingFlags("review", args)
	if err != nil {
		return err
	}
	in, ok := e.stdin.(*os.File)
	if !ok || !console.IsTerminal(in) {
		return usagef("review reads one key per pending file and stdin is not a terminal; use '%s accept' or '%s reject' (with -run to choose scenarios) to act on all of them", invocation(), invocation())
	}
	files, err := pendingFiles(dir, re)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fmt.Fprintf(e.stdout, "no pending files in %s\n", cmp.Or(dir, "or below the current folder"))
		return nil
	}
	restore := console.KeyMode(in)
	defer restore()
	keys := bufio.NewReader(in)
	ctx, stop := interruptible()
	defer stop()
	inst := e.installer(ctx)
	var n [4]int      // accepted, rejected, skipped, not accepted (does not replay)
	var take []string // the current scenario's files accepted, not yet installed
	install := func() error {
		if len(take) == 0 {
			return nil
		}
		ok, err := inst.install(filepath.Dir(take[0]), take)
		if ok {
			n[0] += len(take)
		} else {
			n[3] += len(take)
		}
		take = nil
		return err
	}
	for i, p := range files {
		if len(take) > 0 && filepath.Dir(p) != filepath.Dir(take[0]) {
			if err := install(); err != nil {
				return err
			}
		}
		fmt.Fprintf(e.stdout, "\n%s (%d/%d)\n%s", console.Line(p), i+1, len(files), e.pendingDiff(p))
		k, err := readKey(e.stdout, keys)
		if err != nil || k == 'q' {
			n[2] += len(files) - i
			break
		}
		switch k {
		case 'a':
			take = append(take, p)
		case 'r':
			n[1]++
			if err := rejectPending(p); err != nil {
				return err
			}
		default:
			n[2]++
		}
	}
	if err := install(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "accepted %d, rejected %d, skipped %d", n[0], n[1], n[2])
	if n[3] > 0 {
		fmt.Fprintf(e.stdout, ", not accepted %d (does not replay)", n[3])
	}
	fmt.Fprintln(e.stdout)
	return inst.err()
}

// readKey prompts and returns the first of a, r, s, q typed; Ctrl-C and
// Ctrl-D are q, other input (Enter in line mode among it) is ignored. At
// the end of input it is q.
func readKey(w io.Writer, r *bufio.Reader) (byte, error) {
	fmt.Fprint(w, "[a]ccept [r]eject [s]kip [q]uit? ")
	for {
		b, err := r.ReadByte()
		if err != nil {
			fmt.Fprintln(w)
			return 'q', err
		}
		switch b {
		case 'a', 'r', 's', 'q':
			fmt.Fprintf(w, "%c\n", b)
			return b, nil
		case 3, 4: // Ctrl-C, Ctrl-D in cbreak mode
			fmt.Fprintln(w)
			return 'q', nil
		}
	}
}

// pendingDiff is the diff from a fixture to its pending version.
func (e *env) pendingDiff(p string) string {
	target := scenario.PendingTarget(p)
	cfg := textdiff.Config{Color: e.colour(e.stdout), Width: e.width(e.stdout)}
	if st, err := os.Lstat(p); err == nil && st.IsDir() { // never through a planted link
		if err := treediff.Check(p, treediff.Config{}); err != nil {
			return fmt.Sprintf("refused: %s: %v\n", p, err)
		}
		if _, err := os.Lstat(target); err != nil {
			return "new folder\n"
		}
		diffs, err := treediff.Compare(target, p, treediff.Config{Diff: func(rel string, want, got []byte) string {
			return textdiff.JSONFiles(rel, rel+scenario.PendingSuffix, want, got, cfg)
		}})
		if err != nil {
			return err.Error() + "\n"
		}
		return treediff.Format(diffs, 8192)
	}
	want, _ := safefile.Read(target, scenario.MaxFileBytes)
	got, err := safefile.Read(p, scenario.MaxFileBytes) // a planted .new link is never followed
	if err != nil {
		return err.Error() + "\n"
	}
	if d := textdiff.JSONFiles(target, p, want, got, cfg); d != "" {
		return d
	}
	return "no difference\n"
}
