package check

import (
	"github.com/acpsnap/acpsnap/harness"
	"github.com/acpsnap/acpsnap/normalize"
	"github.com/acpsnap/acpsnap/scenario"
)

// normalizeLive normalizes what a run produced with the run's own context:
// its cwd ({{cwd}}), the agent's private HOME ({{home}}) and the run's
// private root ({{root}}), with every spelling of each; for a run with an
// HTTP model, the context that already numbered its model traffic.
func normalizeLive(res *harness.Result) (*scenario.Transcript, error) {
	c := res.Tokens
	if c == nil {
		c = normalize.NewContext(res.Cwd, res.CwdAliases...)
		if res.Home != "" {
			c.AddPath("home", res.Home, res.HomeAliases...)
		}
		if res.Root != "" {
			c.AddPath("root", res.Root, res.RootAliases...)
		}
	}
	logs := make([][]byte, len(res.Logs))
	names := make([]string, len(res.Logs))
	for i, l := range res.Logs {
		logs[i] = l.Raw
		names[i] = "live " + scenario.LogName(i)
	}
	var stdout []byte
	for _, l := range res.Stdout {
		stdout = append(append(stdout, l...), '\n')
	}
	t, err := NormalizeSide(c, stdout, logs, "live stdout", names)
	if t != nil {
		t.Raw = res.Cassettes
	}
	return t, err
}
