// Package snapshots is the bundled corpus of the reference agent: each
// folder below snapshots/ is one scenario (docs/format.md), and the suite
// in this folder replays them inside `go test ./...` exactly as a user's
// own corpus is replayed: TestSnapshots runs every scenario in parallel,
// one subtest per folder, and TestGuards runs the guards.
//
//	go test ./snapshots -run 'TestSnapshots/cancel'            # filter
//	go test ./snapshots -run 'TestSnapshots/^text-turn$' -update   # accept stdout changes
//
// The test binary serves as the reference agent itself (it re-executes
// itself as `<test binary> agent`), so the suite depends on no binary built
// beforehand. The corpus is regenerated from scripts/corpus by
// scripts/gen-corpus.
package snapshots
