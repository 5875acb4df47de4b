//go:build !unix

package safefile

import "os"

// hold opens the folder p; without flock, the process id alone says who
// holds it.
func hold(p string) (*os.File, error) { return os.Open(p) }

// flock does nothing: without flock(2), the process id alone says who holds
// a file.
func flock(*os.File) error { return nil }

// free is false: without flock, Reap removes nothing.
func free(string) bool { return false }

// alive is true: without a portable check, every holder counts as alive.
func alive(int) bool { return true }
