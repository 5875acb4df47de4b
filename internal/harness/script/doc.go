// Package script writes the client script (input.json) of a session an
// ACP client had with its agent, as acpsnap capture relays it: a Recorder
// is shown every line the client sent (Client) and every line the agent
// sent (Agent), in the order each side wrote them, and at the end turns
// what the client did into the steps, the permission answers, the client
// answers and the capabilities of a scenario (Script).
//
//	rec := script.New(cwd, aliases, proxy.Calls) // nil calls: a native agent
//	if answer := rec.Client(line); answer != nil {
//		toClient(answer) // refused here (a session in another folder)
//	} else {
//		toAgent(line)
//	}
//	rec.Agent(agentLine)
//	s, err := rec.Script(exchanges) // the composed log's calls, for the cancel points
//
// The client's folder becomes {{cwd}} in prompts and params, session ids
// become {{session:N}}, each answer to session/request_permission becomes
// the kind of the option chosen, a cancel during a streamed model call
// becomes a promptAndCancel and a hangAfter patch of that call. What a
// scenario cannot replay (a cancel at no point of a stream, a request the
// client left unanswered, a session of an earlier process) is an error
// that says so. docs/format.md ("Capture") is the contract.
package script
