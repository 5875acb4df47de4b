// Package safefile is how acpsnap touches files an agent controls, and
// files a reader must never see half written.
//
// Reading trusts nothing. Only regular files are read: a FIFO must not
// block the harness, and a symbolic link to /dev/zero or a 20 GB file must
// not exhaust its memory. The open never blocks (O_NONBLOCK), Read never
// follows a final symbolic link (O_NOFOLLOW), and the size is capped with
// a clear error:
//
//	b, err := safefile.Read("sessions/x/session.jsonl", 256<<20)
//	// "safefile: sessions/x/session.jsonl: not a regular file (named pipe)"
//
// The one exception is a Bazel test's data: the links of a runfiles tree
// the front end trusts (Trust) are read as the files they mirror
// (Mirrored). CopyTree is acpsnap's one tree copier, and Equal compares two
// files in pieces. Confined and Within keep a path inside a folder,
// following symbolic links as the kernel will.
//
// Writing is atomic. Write puts the content in a temporary file of the
// same folder and renames it over the target; Publish stages a whole
// scenario folder beside the original and exchanges the two in one step:
//
//	err := safefile.Publish("snapshots/cancel", func(stage string) error { … })
//
// A lease marks a folder as held by the running process, so a later run
// tells the leftovers of a killed one from the folders of a run still
// going, and removes only the former:
//
//	l, err := safefile.LeaseDir(os.TempDir(), "acpsnap-")
//	defer l.Remove()
//	removed, err := safefile.Reap(os.TempDir(), "acpsnap-") // at the start of a later run
//
// A folder is held while its creator lives: the name carries the process
// id, and the folder is locked with flock through a descriptor the kernel
// releases when the process dies.
package safefile
