package main

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// inMemory puts the scripts' $WORK folders (and so every folder the acpsnap
// runs in them make: their TMPDIR is $WORK/.tmp) on /dev/shm when it is a
// tmpfs with room and neither GOTMPDIR nor TMPDIR says where temporary
// files go. The scripts make and remove tens of thousands of files and
// folders within seconds, and ext4's inode allocator skips every inode
// freed in the last 30 seconds one by one (recently_deleted in
// find_inode_bit): on a 2-CPU VM that was a quarter of the package's CPU
// and half its wall time (perf record -a). The other packages' tests, and
// acpsnap itself, keep the system's temporary folder.
func inMemory(t *testing.T) {
	const shm, room = "/dev/shm", 512 << 20
	if os.Getenv("GOTMPDIR") != "" || os.Getenv("TMPDIR") != "" {
		return
	}
	var st unix.Statfs_t
	if unix.Statfs(shm, &st) != nil || st.Type != unix.TMPFS_MAGIC || st.Bavail*uint64(st.Bsize) < room {
		return
	}
	dir, err := os.MkdirTemp(shm, "acpsnap-scripts-")
	if err != nil {
		return
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// testscript makes its folders under $GOTMPDIR; the scripts' own
	// processes get TMPDIR=$WORK/.tmp from it, not this.
	os.Setenv("GOTMPDIR", dir)
	t.Cleanup(func() { os.Unsetenv("GOTMPDIR") })
}
