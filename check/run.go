package check

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/acpsnap/acpsnap/scenario"
)

// RunConfig checks a whole corpus.
type RunConfig struct {
	Config
	Root      string    // the corpus folder
	Selection Selection // which scenarios; zero: all
	// Parallel is the number of scenarios run at once; 0: 1. Record mode
	// always runs serially (it spends live model calls).
	Parallel int
	// OnDone is called once per scenario, in name order, as soon as it and
	// every scenario before it have finished, from one goroutine at a time
	// (so progress output is in the same order on every run); nil: nothing.
	OnDone func(Outcome)
}

// Run checks every selected scenario under rc.Root and returns the outcomes
// in name order. When ctx ends, scenarios not yet started are not started:
// they come back Skipped. The error is for the corpus as a whole (it cannot
// be listed).
func Run(ctx context.Context, rc RunConfig) ([]Outcome, error) {
	names, err := scenario.Names(rc.Root)
	if err != nil {
		return nil, err
	}
	var selected []string
	for _, n := range names {
		if rc.Selection.Match(n) {
			selected = append(selected, n)
		}
	}
	workers := max(rc.Parallel, 1)
	if rc.Mode == Record {
		workers = 1
	}
	out := make([]Outcome, len(selected))
	jobs := make(chan int)
	report := inOrder(len(selected), rc.OnDone)
	var wg sync.WaitGroup
	for range min(workers, max(len(selected), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = Check(ctx, filepath.Join(rc.Root, selected[i]), rc.Config)
				report(i, out[i])
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
		report(i, out[i])
	}
	return out, nil
}

// inOrder returns a reporter that takes outcomes by index in any order and
// passes them to done in index order, each as soon as all before it came.
func inOrder(n int, done func(Outcome)) func(int, Outcome) {
	var mu sync.Mutex
	held := make([]*Outcome, n)
	next := 0
	return func(i int, o Outcome) {
		if done == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		held[i] = &o
		for ; next < n && held[next] != nil; next++ {
			done(*held[next])
			held[next] = nil
		}
	}
}

// Count tallies outcomes by status.
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
