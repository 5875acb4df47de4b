// Package conformance is a test agent that does what real agents do, each
// behaviour switched by its environment (Behaviour), and the suite that
// runs it through acpsnap's write modes in every HTTP dialect of the table
// (internal/wire/dialect), each write followed
// by replays that must pass: the model's tool-call id reused as the ACP
// toolCallId or a minted one, absolute and relative paths in arguments and
// titles, a placeholder in model.json, an error body shown verbatim, a
// timer-driven update after session/new (acpsnap.yml ready), a side call in
// parallel with the turn (a model.json entry with match; recorded in one
// order, replayed in the other; a request id of each call's own), a slow exit with
// a child (agent.grace), a cancel before and after the first text, random
// model scripts, and an unstable agent no write mode may publish.
//
// The agent is the test binary itself: TestMain calls Main, which serves
// ACP on stdio (github.com/coder/acp-go-sdk) when Env is set, talking to
// its model over HTTP with the codecs of internal/wire. docs/format.md
// and docs/agents.md say what each behaviour exercises.
package conformance
