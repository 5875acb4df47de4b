//go:build !linux

package main

import "testing"

// inMemory is Linux's (workdir_linux_test.go); elsewhere the scripts use
// the system's temporary folder.
func inMemory(*testing.T) {}
