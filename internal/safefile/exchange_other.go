//go:build !linux

package safefile

import (
	"fmt"
	"os"
)

// exchange swaps the folders a and b with three renames (no atomic
// exchange here): b is missing between the first two.
func exchange(a, b string) error {
	side := a + ".swap"
	if err := os.Rename(b, side); err != nil {
		return fmt.Errorf("safefile: exchange %s with %s: %w", b, a, err)
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(side, b)
		return fmt.Errorf("safefile: exchange %s with %s: %w", b, a, err)
	}
	return os.Rename(side, a)
}
