package check

import (
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/normalize"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// normalizeLive normalizes what a run produced with the run's own context:
// its cwd ({{cwd}}), the agent's private HOME ({{home}}) and the run's
// private root ({{root}}), with every spelling of each; for a run with an
// HTTP model, the context in which the harness already normalized the
// model payloads of its composed log, which are not normalized again
// (normalize.Composed): each payload is normalized once.
func normalizeLive(res *harness.Result) (*scenario.Transcript, error) {
	c, session := res.Tokens, composed
	if c == nil {
		session = normalize.Session
		c = normalize.NewContext(res.Cwd, res.CwdAliases...)
		if res.Home != "" {
			c.AddPath("home", res.Home, res.HomeAliases...)
		}
		if res.Root != "" {
			c.AddPath("root", res.Root, res.RootAliases...)
		}
		if res.Nonce != "" {
			c.AddNonce(res.Nonce, res.NonceFolders...)
		}
	}
	logs := make([][]byte, len(res.Logs))
	names := make([]string, len(res.Logs))
	for i, l := range res.Logs {
		logs[i] = l.Raw
		names[i] = "live " + scenario.LogName(i)
	}
	stdout := func(c *normalize.Context) ([]byte, error) {
		// The lines go as they are normalized: a large output is not held twice.
		out, err := normalize.StdoutLines(res.Stdout, c)
		res.Stdout = nil
		return out, err
	}
	t, err := normalizeSide(c, session, stdout, logs, "live stdout", names)
	if t != nil {
		t.Raw = res.Cassettes
	}
	return t, err
}

// composed normalizes a composed log whose payloads the harness
// normalized as the proxy relayed them (httplog.Normalized says which).
func composed(raw []byte, c *normalize.Context) ([]byte, error) {
	return normalize.Composed(raw, c, httplog.Normalized)
}
