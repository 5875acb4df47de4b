package check

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/acpsnap/acpsnap/internal/harness"
)

// RunConfig checks a whole corpus.
type RunConfig struct {
	Config
	Root      string    // the corpus folder
	Selection Selection // which scenarios; zero: all
	// Parallel is the number of scenarios run at once; 0: 1. Record mode
	// always runs serially (it spends live model calls).
	Parallel int
	// OnDone is called once per scenario as soon as it finishes, from one
	// goroutine at a time; nil: nothing.
	OnDone func(Outcome)
	// OnBegin is called with a scenario's name as it starts, possibly from
	// several goroutines at once; nil: nothing.
	OnBegin func(name string)
}

// Run checks every selected scenario under rc.Root and returns the outcomes
// in name order. When ctx ends, scenarios not yet started are not started:
// they come back Skipped. The error is for the corpus as a whole (it cannot
// be listed).
func Run(ctx context.Context, rc RunConfig) ([]Outcome, error) {
	selected, err := rc.Selected()
	if err != nil {
		return nil, err
	}
	if rc.Pool == nil {
		// The private roots of a scenario that ended cleanly serve the next
		// one, emptied; they are removed before Run returns.
		rc.Pool = &harness.RootPool{}
		defer rc.Pool.Close()
	}
	workers := max(rc.Parallel, 1)
	if rc.Mode == Record {
		workers = 1
	}
	out := make([]Outcome, len(selected))
	jobs := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, max(len(selected), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if rc.OnBegin != nil {
					rc.OnBegin(selected[i])
				}
				o := Check(ctx, filepath.Join(rc.Root, selected[i]), rc.Config)
				out[i] = o
				if rc.OnDone != nil {
					mu.Lock()
					rc.OnDone(o)
					mu.Unlock()
				}
			}
		}()
	}
	next := 0
dispatch:
	for ; next < len(selected); next++ {
		select {
		case jobs <- next:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(jobs)
	wg.Wait()
	for i := next; i < len(selected); i++ {
		out[i] = Outcome{Name: selected[i], Status: Skipped, Reason: "interrupted before it ran"}
	}
	return out, nil
}

// Selected lists the scenarios of rc.Root that rc.Selection selects, in
// name order (from rc.Folders when they hold that corpus): the scenarios
// Run checks, in the order of its outcomes.
func (rc RunConfig) Selected() ([]string, error) {
	return selectFrom(rc.Folders, rc.Root, rc.Selection)
}

func selectFrom(f *Folders, root string, sel Selection) ([]string, error) {
	names, err := f.names(root)
	if err != nil {
		return nil, err
	}
	var selected []string
	for _, n := range names {
		if sel.Match(n) {
			selected = append(selected, n)
		}
	}
	return selected, nil
}

// Count tallies outcomes by status; Unrecorded counts as failed.
func Count(outs []Outcome) (passed, failed, skipped int) {
	for _, o := range outs {
		switch o.Status {
		case Passed:
			passed++
		case Failed, Unrecorded:
			failed++
		case Skipped:
			skipped++
		}
	}
	return passed, failed, skipped
}
