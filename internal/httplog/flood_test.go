package httplog

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// flood is n tiny requests of one agent, each its own one-message
// conversation (no follow-up of any other), as an agent that floods its
// model sends them; every eighth repeats the one before it (a retry, a
// follow-up of it).
func flood(n int) []Exchange {
	xs := make([]Exchange, n)
	for i := range xs {
		body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"flood %d"}]}`, i-min(i%8, 1)*(i%8/7))
		xs[i] = Exchange{
			Request:  Request{Method: "POST", Path: "/chat/completions", Body: []byte(body)},
			Response: Response{Status: 400, Body: []byte(`{"error":{"message":"no"}}`)},
		}
	}
	return xs
}

// TestComposeFloodIsLinear: composing twice as many calls costs twice the
// work, not four times (each call once looked for its base by re-reading
// every call before it). Allocations count the work, not the clock.
func TestComposeFloodIsLinear(t *testing.T) {
	allocs := func(n int) float64 {
		xs := flood(n)
		return testing.AllocsPerRun(2, func() {
			if _, err := Compose(context.Background(), xs, header("openai-chat"), nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(500), allocs(2000)
	if ratio := large / small; ratio > 5 {
		t.Errorf("4x the calls took %.1fx the allocations (%.0f, then %.0f): not linear", ratio, small, large)
	}
}

// TestComposeStopsWithContext: an interrupted run does not wait for the
// log of its calls.
func TestComposeStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Compose(ctx, flood(1000), header("openai-chat"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Compose with an ended context: %v, want context.Canceled", err)
	}
}

// BenchmarkComposeFlood composes the log of 2,500, 10,000 and 20,000 tiny
// calls.
func BenchmarkComposeFlood(b *testing.B) {
	for _, n := range []int{2500, 10000, 20000} {
		xs := flood(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Compose(context.Background(), xs, header("openai-chat"), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
