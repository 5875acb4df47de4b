// Package sandbox runs a process tree in a loopback-only network namespace
// and reports what it tried to reach: `acpsnap run -offline` (docs/agents.md,
// "What -offline holds, and what it does not").
//
// The caller re-executes itself with Reexec; the re-executed process calls
// Enter, does its work, then reads Attempts:
//
//	// outside
//	code, err := sandbox.Reexec(sandbox.Config{Args: os.Args, Env: append(os.Environ(), marker)})
//	// inside (the marker set)
//	sb, err := sandbox.Enter()
//	work()
//	sb.Close()
//	for _, c := range sb.Attempts().Lookups { fmt.Println(c.N, c.Key) }
//
// The namespace is always a new user namespace too, even as root, so no
// process inside holds a capability over the host's namespaces: it cannot
// setns back into the host's network. It is a PID namespace whose init is
// the re-executed process, with a /proc of its own: nothing inside sees a
// process outside, and everything inside dies with it (and it with its
// caller). Config.Hidden variables reach it through a pipe, never its
// /proc/<pid>/environ; with Config.Dial, Sandbox.Dial connects from the
// caller's network (record's model proxy), a way out nothing else inside
// holds. The host name is "acpsnap". Only lo exists, brought up so
// 127.0.0.1 servers work. /etc/resolv.conf (and the hosts line of
// nsswitch.conf) are replaced in a private mount namespace, so name
// lookups go to a DNS responder on 127.0.0.1:53 that answers NXDOMAIN and
// counts the names; every IPv4 address is routed to lo, where a connect is
// refused at once and raw sockets count its first packet; IPv6 beyond ::1
// is unreachable.
//
// It isolates the network and the processes; docs/agents.md says what
// stays in reach.
//
// The namespace code is Linux only; elsewhere Reexec returns
// ErrUnavailable.
package sandbox
