// Package snapshots is the bundled corpus of the reference agent: each
// folder below snapshots/ is one scenario (docs/format.md), and the suite
// in this folder checks them inside `go test ./...` the way a user checks
// their own agent's corpus, with acpsnaptest: TestSnapshots runs the guards
// (TestSnapshots/guards) and every scenario in parallel, one subtest per
// folder.
//
//	go test ./snapshots -run 'TestSnapshots/cancel'                                # filter
//	go test ./snapshots -run 'TestSnapshots/^text-turn$' -args -acpsnap.update     # accept stdout changes
//	ACPSNAP_WRITE=refresh go test ./snapshots -run 'TestSnapshots/^text-turn$'     # accept log changes too
//
// The test binary serves as the reference agent itself (acpsnaptest.Main
// serves it as the command acpsnap-agent), so the suite depends on no
// binary built beforehand, and a failure names the command that accepts it,
// as for any user. The other tests here prove what the corpus
// alone cannot: record, pins, private paths, keys kept from replay, failed
// writes, the cassettes' edge cases and the HTTP path. The corpus is regenerated from
// scripts/corpus by scripts/gen-corpus; what the reference agent does in
// it is in docs/reference-agent.md.
package snapshots
