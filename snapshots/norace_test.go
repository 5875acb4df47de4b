//go:build !race

package snapshots_test

const raceEnabled = false
