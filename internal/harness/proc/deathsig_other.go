//go:build !linux

package proc

import "syscall"

// DieWithHarness: without PR_SET_PDEATHSIG the process outlives a killed
// harness.
func DieWithHarness(attr *syscall.SysProcAttr, _ bool) *syscall.SysProcAttr { return attr }
