// Package parallel sets how many parallel tests one of acpsnap's own test
// binaries runs. Its parallel tests spend their time waiting (on agents'
// sleeps, step timeouts and shutdown graces), not computing, so the
// default of one per CPU leaves the CPU idle for seconds.
package parallel

import (
	"flag"
	"runtime"
	"strconv"
)

// PerCPU sets -test.parallel to n per CPU unless the command line gives
// it. It parses the command line, so TestMain calls it before m.Run.
func PerCPU(n int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(n*runtime.GOMAXPROCS(0)))
	}
}
