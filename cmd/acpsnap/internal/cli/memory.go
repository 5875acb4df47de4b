package cli

import "runtime/debug"

// memoryLimit is the soft limit of acpsnap's Go heap (runtime/debug
// SetMemoryLimit), unless GOMEMLIMIT sets another: near it the garbage
// collector runs more often instead of letting the heap grow to twice what
// is live, so a run over large outputs (the caps: 64 MiB of agent stdout,
// 64 MiB per fixture file) stays within 512 MB. A run whose live data is
// small never comes near it.
const memoryLimit = 320 << 20

// limitMemory sets memoryLimit unless getenv("GOMEMLIMIT") is set.
func limitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
