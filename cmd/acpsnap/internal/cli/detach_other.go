//go:build !unix

package cli

// canDetach: elsewhere there is no session to put a worker in, and the
// capture runs in this process.
const canDetach = false

func (e *env) detached([]string) int { return ExitInternal }

func startWorker([]string) int { return ExitInternal }
func reportExit(int)           {}
func keepDone()                {}
