package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// invocation is how the user ran acpsnap, for the commands its hints
// print: "go tool acpsnap", "go run ./cmd/acpsnap", else "acpsnap". It is
// read once, from the command line of the parent process where /proc has
// it (go tool and go run start acpsnap themselves).
var invocation = sync.OnceValue(func() string {
	b, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(os.Getppid()), "cmdline"))
	if err != nil {
		return "acpsnap"
	}
	return invokedAs(strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00"))
})

// goValueFlags are the flags of go run that take their value as the next
// argument.
var goValueFlags = map[string]bool{"-C": true, "-exec": true, "-tags": true, "-ldflags": true, "-gcflags": true,
	"-asmflags": true, "-gccgoflags": true, "-p": true, "-mod": true, "-modfile": true, "-overlay": true, "-pgo": true,
	"-pkgdir": true, "-toolexec": true, "-installsuffix": true, "-covermode": true, "-coverpkg": true, "-buildmode": true, "-compiler": true}

// invokedAs is how a user ran acpsnap from parent, the command line of the
// process that started it: "go tool NAME" and "go run PACKAGE" as given,
// anything else "acpsnap".
func invokedAs(parent []string) string {
	if len(parent) < 3 || filepath.Base(parent[0]) != "go" {
		return "acpsnap"
	}
	switch parent[1] {
	case "tool":
		if !strings.HasPrefix(parent[2], "-") {
			return "go tool " + parent[2]
		}
	case "run":
		for i := 2; i < len(parent); i++ {
			a := parent[i]
			switch {
			case goValueFlags[a]:
				i++
			case strings.HasPrefix(a, "-"):
			case strings.ContainsAny(a, " \t\n'\"$`\\|&;<>()*?[]#~{}!"):
				return "go run " + shellQuote(a)
			default:
				return "go run " + a // a module path with @version, as typed
			}
		}
	}
	return "acpsnap"
}
