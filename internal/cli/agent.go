package cli

import (
	"errors"

	"github.com/acpsnap/acpsnap/agent/launch"
)

// agent runs the reference agent on stdin/stdout (package agent/launch says
// how its environment selects the model).
func (e *env) agent(args []string) error {
	fset := e.flags("agent")
	if err := parse(fset, args); err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	err := launch.Main(ctx, launch.Process{Getenv: e.getenv, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr})
	var ue *launch.UsageError
	if errors.As(err, &ue) {
		return usagef("%v", ue.Err)
	}
	return err
}

// liveSecrets are the variables a record run passes to the agent.
func (e *env) liveSecrets() (map[string]string, error) {
	s, err := launch.LiveSecrets(e.getenv, ".env")
	var ue *launch.UsageError
	if errors.As(err, &ue) {
		return nil, usagef("%v", ue.Err)
	}
	return s, err
}
