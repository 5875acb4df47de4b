// Package proc supervises the harness's processes: the agent, started in a
// process group of its own, its stdout recorded line by line before the
// ACP SDK reads it (a line that breaks the protocol fails the run), its
// stderr kept within a cap, and its bounded shutdown; and, for every
// process a run starts (the agent, the terminals of package client), the
// start/track lock and the sweep of escapees that left their group.
//
//	a, err := proc.Start(argv, cwd, env, grace, false, fail)
//	conn := acp.NewClientSideConnection(cl, a.Stdin(), a.SDK())
//	...
//	how, leftovers := a.Shutdown(grace) // stdin EOF, SIGTERM, SIGKILL: three graces at most
//	killed := proc.Escapees(root, time.Now().Add(grace))
//
// Start wires the SDK's side through a Flow, which keeps the SDK's queue
// of notifications from overflowing (the client acknowledges its barriers
// with Flow.Ack). Linux gives the harness a child subreaper,
// PR_SET_PDEATHSIG, /proc and a watchdog shell that kills the process
// groups of a harness that died (Forget a group once it is gone);
// elsewhere Escapees finds nothing and a killed harness may leave its
// agent running. How an agent must end is in
// docs/agents.md ("Against a hostile agent") and docs/format.md
// ("Running").
package proc
