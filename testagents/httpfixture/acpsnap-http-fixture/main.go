// Command acpsnap-http-fixture serves package httpfixture on 127.0.0.1
// (httpfixture.Addr unless -addr says otherwise) until it is killed:
// scripts/gen-corpus runs it while it records the fetch scenarios.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"

	"github.com/acpsnap/acpsnap/testagents/httpfixture"
)

func main() {
	addr := flag.String("addr", httpfixture.Addr, "the address to listen on (127.0.0.1 only)")
	flag.Parse()
	if err := http.ListenAndServe(*addr, httpfixture.New()); err != nil {
		fmt.Fprintln(os.Stderr, "acpsnap-http-fixture:", err)
		os.Exit(1)
	}
}
