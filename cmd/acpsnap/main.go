package main

import (
	"os"

	"github.com/acpsnap/acpsnap/cmd/acpsnap/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
