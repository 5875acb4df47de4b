//go:build !linux

package agent

import "os"

// outputFile is the file a local command writes its output to (a
// temporary file), and the function that disposes of it.
func outputFile() (*os.File, func(), error) { return tempOutputFile() }
