package console

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writes records each Write call separately, to check that every update is
// one Write.
type writes struct {
	mu    sync.Mutex
	calls []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

func ExampleSlowest() {
	fmt.Print(Slowest([]Result{
		{Name: "text-turn", Outcome: Passed, Elapsed: 120 * time.Millisecond},
		{Name: "cancel-mid-stream", Outcome: Failed, Elapsed: 2500 * time.Millisecond},
		{Name: "handshake", Outcome: Passed, Elapsed: 40 * time.Millisecond},
	}, 2))
	// Output:
	// slowest scenarios:
	//    2.5s  cancel-mid-stream (failed)
	//   120ms  text-turn
}

func ExampleTracker() {
	p := NewProgress(ProgressConfig{Out: os.Stdout, Terminal: false, Total: 2})
	p.Start("a")
	p.Done("a", Passed, time.Second)
	p.Print("ok   a\n") // not a terminal: written as it is, no live line
	fmt.Println(p.Line())
	// Output:
	// ok   a
	// 1/2 passed
}

func TestTerminal(t *testing.T) {
	w := &writes{}
	p := NewProgress(ProgressConfig{Out: w, Terminal: true, Total: 27})
	p.Start("a")
	p.Start("b")
	p.Start("c")
	p.Done("a", Passed, time.Second)
	p.Done("b", Failed, time.Second)
	p.Print("FAIL b\n")
	p.Finish()
	want := []string{
		clearLine + "0/27 passed, 1 running…",
		clearLine + "0/27 passed, 2 running…",
		clearLine + "0/27 passed, 3 running…",
		clearLine + "1/27 passed, 2 running…",
		clearLine + "1/27 passed, 1 failed, 1 running…",
		clearLine + "FAIL b\n1/27 passed, 1 failed, 1 running…",
		clearLine,
	}
	if diff := cmp.Diff(want, w.calls); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}

func TestNotTerminal(t *testing.T) {
	w := &writes{}
	p := NewProgress(ProgressConfig{Out: w, Total: 3})
	p.Start("a")
	p.Done("a", Skipped, 0)
	p.Print("skip a: not recorded")
	p.Finish()
	if diff := cmp.Diff([]string{"skip a: not recorded"}, w.calls); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("0/3 passed, 1 skipped", p.Line()); diff != "" {
		t.Errorf("Line (-want +got):\n%s", diff)
	}
}

func TestWidth(t *testing.T) {
	p := NewProgress(ProgressConfig{Terminal: true, Total: 1000, Width: 20})
	for i := range 5 {
		p.Start(fmt.Sprint(i))
	}
	p.Done("0", Failed, 0)
	got := p.Line()
	if diff := cmp.Diff("0/1000 passed, 1 fa…", got); diff != "" {
		t.Errorf("Line (-want +got):\n%s", diff)
	}
}

func TestConcurrent(t *testing.T) {
	w := &writes{}
	p := NewProgress(ProgressConfig{Out: w, Terminal: true, Total: 40})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("s%02d", i)
			p.Start(name)
			p.Done(name, Outcome(i%2), time.Duration(i)*time.Millisecond)
		}()
	}
	wg.Wait()
	if diff := cmp.Diff("20/40 passed, 20 failed", p.Line()); diff != "" {
		t.Errorf("Line (-want +got):\n%s", diff)
	}
	for _, c := range w.calls {
		if !strings.HasPrefix(c, clearLine) || strings.Contains(c, "\n") {
			t.Fatalf("update %q is not one in-place rewrite", c)
		}
	}
	if n := len(p.Results()); n != 40 {
		t.Errorf("Results: %d, want 40", n)
	}
	if got := Slowest(p.Results(), 1); got != "slowest scenarios:\n  39ms  s39 (failed)\n" {
		t.Errorf("Slowest = %q", got)
	}
}

func TestSlowestEmpty(t *testing.T) {
	if got := Slowest(nil, 3); got != "" {
		t.Errorf("Slowest(nil) = %q", got)
	}
	if got := Slowest([]Result{{Name: "a"}}, 0); got != "" {
		t.Errorf("Slowest(n=0) = %q", got)
	}
}
