package safefile

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// exchange swaps the folders a and b in one step.
func exchange(a, b string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		return fmt.Errorf("safefile: exchange %s with %s: %w", b, a, err)
	}
	return nil
}
