package scenario

import "github.com/acpsnap/acpsnap/internal/safefile"

// MaxFileBytes caps any one scenario file acpsnap reads (a fixture, a log,
// a manifest, a client script): 128 MiB, what a run may record of an
// agent's stdout, so that a run compares the two within 512 MB.
const MaxFileBytes = 128 << 20

// readFile reads a scenario file as a pull request may have committed it:
// only a regular file, never through a final symbolic link (a link to a
// credential file, to /dev/zero, a FIFO), at most MaxFileBytes; refused
// with its path otherwise.
func readFile(path string) ([]byte, error) { return safefile.Read(path, MaxFileBytes) }
