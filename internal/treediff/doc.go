// Package treediff compares a directory tree with an expected one (a
// scenario's working directory after a run with its workspace.expected/) and
// writes an expected tree from a run.
//
// The happy path:
//
//	cfg := treediff.Config{Normalize: toTokens, Diff: textDiff}
//	diffs, err := treediff.Compare("scenario/workspace.expected", cwd, cfg)
//	if len(diffs) > 0 {
//		return errors.New(treediff.Format(diffs, 8192))
//	}
//	// refresh or record:
//	err = treediff.Copy(cwd, "scenario/workspace.expected", cfg)
//
// # What is compared
//
// Every entry under the two roots (the roots themselves excepted): its kind
// (regular file, directory, symbolic link), for files and directories the
// permission bits selected by Config.Modes, for files the content, for links
// the target as written (links are never followed). The got tree's file
// contents and link targets first go through Config.Normalize, which is how a
// caller turns the run's absolute working directory back into a {{cwd}}
// token; the expected tree is read as it is, so it holds tokens, not paths.
// Only the caller knows which files are text: Normalize receives every file
// and returns binary ones unchanged ([IsText] is a usual test).
//
// Either tree may be an agent's: files are read through package safefile
// (regular files only, never through a link, never blocking), each capped
// at Config.MaxFileBytes (64 MiB by default), and files of equal size are
// compared in pieces, never held whole, unless Normalize must see them. An
// entry that is not a file, folder or link, a link that leaves the tree
// and a file over the cap are errors naming the entry's path.
//
// Differences come out in tree order (paths slash-separated, relative to
// the roots, sorted component by component): a missing or extra entry (a whole missing or extra directory is one
// difference, its contents not listed again), a changed kind, a changed mode,
// a changed link target, a changed content with Config.Diff's rendering.
// [Format] prints them under a byte cap.
//
// Git keeps one permission bit of a file (owner-executable) and no empty
// directory, so the default Modes is 0o100 and an expected tree in git
// should not rely on empty directories; Modes 0o777 compares every bit.
//
// # Writing an expected tree
//
// [Copy] writes the src tree (normalized) to dst: into a new temporary
// directory beside dst first, then swapped in by two renames, so a failed
// copy leaves dst as it was and a reader sees the old tree or the new one
// (there is a moment with no dst between the renames). Symbolic links are
// copied as links, never followed; a link that is absolute or climbs out of
// the tree ("../x" from the root) is refused, as are sockets, devices and
// pipes, a file over the cap, and a dst inside src. Files are streamed
// (held whole only when Normalize must see them).
package treediff
