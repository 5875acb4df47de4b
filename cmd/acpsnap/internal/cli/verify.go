package cli

import (
	"fmt"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// verify runs the corpus guards without running agents.
func (e *env) verify(args []string) error {
	fs := e.flags("verify")
	dir := fs.String("dir", "", dirUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("verify: unexpected arguments %q", fs.Args())
	}
	var err error
	if *dir, err = findCorpus(*dir, false); err != nil {
		return err
	}
	names, err := scenario.Names(*dir)
	if err != nil {
		return usagef("%v", err)
	}
	vs := check.Verify(*dir, check.VerifyConfig{Unreferenced: true})
	for _, v := range vs {
		fmt.Fprintln(e.stderr, v)
	}
	if len(vs) > 0 {
		return usagef("%d guard violation(s) in %s", len(vs), *dir)
	}
	if c, err := scenario.LoadCorpus(*dir); err == nil {
		for _, a := range c.Conformance.Acknowledge {
			fmt.Fprintf(e.stdout, "acknowledged: the agent breaks ACP rule %s: %s\n", a.Rule, a.Reason)
		}
	}
	fmt.Fprintf(e.stdout, "%s: %d scenarios verified\n", *dir, len(names))
	return nil
}
