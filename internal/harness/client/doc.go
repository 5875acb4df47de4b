// Package client is the harness's side of ACP: the acp.Client that answers
// the agent's session/request_permission from input.json's
// permissionAnswers, serves fs/read_text_file and fs/write_text_file
// inside the scenario cwd (through an os.Root, so no symbolic link leads
// out), and runs terminal/* commands in pseudo-terminals; the Book of
// input.json's answers, clientAnswers included, which answers requests
// before the SDK sees them; and the Wire, the agent's stdin that the SDK
// and the raw ops share.
//
//	w := client.NewWire(agent.Stdin())
//	book := client.NewBook(in)
//	cl := &client.Client{Cwd: cwd, Root: root, Terms: client.NewTerminals(env, grace, false),
//		Flow: agent.Flow(), Fail: fail, Book: book}
//	conn := acp.NewClientSideConnection(cl, w, book.Answering(agent.SDK(), w))
//	...
//	cl.Terms.CloseAll() // at the end of the run
//
// What the client serves, and what it refuses, is in docs/format.md
// ("Client script", "Running") and docs/agents.md.
package client
