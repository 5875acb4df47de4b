//go:build !linux

package harness

import "syscall"

// dieWithHarness: without PR_SET_PDEATHSIG the process outlives a killed
// harness.
func dieWithHarness(attr *syscall.SysProcAttr) *syscall.SysProcAttr { return attr }
