// Package frontend is what the two front ends, the acpsnap command and
// the go test entry point acpsnaptest, decide the same way, written once:
// where the corpus is when none is named, whether a run may write to it
// in CI, what Bazel's test runner asks, and how a printed command line
// is quoted.
//
//	dir, err := frontend.FindCorpus("", "-dir")        // the current folder, ./snapshots, or the only corpus below
//	err = frontend.WriteRefused(w, os.Getenv("CI"), force) // the CI write policy
//	b, err := frontend.ReadBazel(os.Getenv)           // the shard to run, the XML report's path
//	fmt.Println("accept with: acpsnap update -run " + frontend.Quote("^"+name+"$"))
//
// A front end reads its flags and its environment and hands the values
// here; the package reads no environment of its own. docs/format.md
// ("Running") and docs/ci.md say what a user sees of each rule.
package frontend
