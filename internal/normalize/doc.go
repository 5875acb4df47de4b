// Package normalize turns the volatile values of an agent run (its working
// directory, home and private root, session, tool-call and message ids,
// the JSON-RPC ids of the agent's own requests, times) into stable tokens,
// so that a live run and a committed fixture compare byte for byte. The
// tokens and the rules that make them are specified in docs/format.md
// ("Normalization").
//
// The happy path, for the live side:
//
//	c := normalize.NewContext(cwd, normalize.Aliases(cwd)...)
//	c.AddPath("home", home, normalize.Aliases(home)...) // the agent's HOME
//	c.AddPath("root", root, normalize.Aliases(root)...) // the run's root
//	primary, err := normalize.Session(rawPrimaryLog, c)
//	child1, err := normalize.Session(rawChildLog1, c) // children in order
//	stdout, err := normalize.Stdout(rawStdout, c)      // stdout last
//
// and for the committed side, a context derived from the fixture itself:
//
//	f, err := normalize.FixtureContext(committedPrimaryLog) // its first line
//	… the same three calls with f, in the same order.
//
// One Context serves all the files of one side, in that order, so a
// session id has one token in the logs and in stdout; the two sides never
// share one (a stale recorded path would survive, and one side's numbers
// would shift the other's). Session and Stdout are pure transforms over
// bytes: they return compact JSON, one record per line, keys sorted,
// numbers as read, and never read the file system or the environment.
// Normalizing normalized output changes nothing. The keys that name each
// kind of id are the formats' facts, in identity.go alone.
// BenchmarkSession measures the throughput.
package normalize
