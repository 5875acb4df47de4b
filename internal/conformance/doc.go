// Package conformance checks what an ACP agent wrote against the rules of
// the Agent Client Protocol that a client can see: each stdout line against
// the ACP JSON Schema of its method, and the conversation as a whole
// (a cancelled prompt ends with stopReason "cancelled", every request is
// answered once, an update names a session and a tool call the agent
// announced, …). Rules is the table; each rule has an id, the
// specification's words and a check.
//
// check runs it on every run of an agent, the run's lines in the order the
// client saw them:
//
//	for _, v := range conformance.Check(lines) {
//		fmt.Printf("stdout line %d: %s: %s\n", v.Line, v.Rule.ID, v.Msg)
//	}
//
// ParseUpdate reads the one message of an agent's stdout that every
// reader looks into, session/update (the harness's waitForUpdate and
// ready.update, check's floating updates, the transcript, the probe's
// labels): its envelope, once, with the ACP SDK's names for it.
//
// The schema is the one github.com/coder/acp-go-sdk ships (schema.json),
// the unstable one, which knows every method the SDK's client speaks.
// docs/format.md ("Conformance") lists the rules, what each covers of
// swissarmyhammer's acp-conformance suite, and how a corpus acknowledges
// a known violation.
package conformance
