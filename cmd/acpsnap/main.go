// Command acpsnap records, replays and verifies ACP agent snapshot tests.
// See the README and package github.com/acpsnap/acpsnap/snapshots.
package main

import (
	"os"

	"github.com/acpsnap/acpsnap/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
