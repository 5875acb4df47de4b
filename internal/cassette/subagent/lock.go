package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

// LockSuffix names the writer lock directory beside a cassette.
const LockSuffix = ".lock"

// lock takes the writer lock of the cassette at path: a directory made
// with one atomic mkdir, so a second writer, in this process or another,
// fails at once. A lock left by a writer that died is never removed
// automatically: the message says to remove it by hand.
func lock(path string) (release func() error, err error) {
	dir := path + LockSuffix
	name := cassette.Display(path) + LockSuffix
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("subagent cassette: %s: another writer holds the lock (if none is running it is stale: remove the directory by hand)", name)
		}
		return nil, fmt.Errorf("subagent cassette: %s: take the writer lock: %w", name, errors.Unwrap(err))
	}
	owner := filepath.Join(dir, "owner")
	os.WriteFile(owner, fmt.Appendf(nil, "pid %d\n", os.Getpid()), 0o644) // for people; best effort
	return func() error {
		os.Remove(owner)
		if err := os.Remove(dir); err != nil {
			return fmt.Errorf("subagent cassette: %s: release the writer lock: %w", name, errors.Unwrap(err))
		}
		return nil
	}, nil
}
