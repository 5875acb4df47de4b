package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPlantedFixtureFiles: a committed fixture that is a link to a
// credential file or to /dev/zero, or a FIFO manifest, is refused with its
// path: nothing outside is read, nothing hangs or runs out of memory.
func TestPlantedFixtureFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(secret, []byte("aws_secret=xyz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(secret, filepath.Join(dir, StdoutFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, SessionFile)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ManifestFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, InputFile), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFixture(dir)
	check := func(what string, err error, file string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, file)+": not a regular file") || strings.Contains(err.Error(), "aws_secret") {
			t.Errorf("%s: err = %v, want %s refused as not a regular file", what, err, file)
		}
	}
	check("ReadFixture", err, StdoutFile)
	os.Remove(filepath.Join(dir, StdoutFile))
	os.WriteFile(filepath.Join(dir, StdoutFile), nil, 0o644)
	_, err = ReadFixture(dir)
	check("ReadFixture", err, SessionFile)
	_, err = LoadManifest(filepath.Join(dir, ManifestFile))
	check("LoadManifest", err, ManifestFile)
	_, err = LoadInput(filepath.Join(dir, InputFile))
	check("LoadInput", err, InputFile)
}
