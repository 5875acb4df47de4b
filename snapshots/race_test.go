//go:build race

package snapshots_test

// raceEnabled: the suite runs under the race detector, whose runtime sleeps
// 1 s at every exit unless told otherwise (GORACE=atexit_sleep_ms).
const raceEnabled = true
