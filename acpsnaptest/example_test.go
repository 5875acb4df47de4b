package acpsnaptest_test

import (
	"flag"
	"fmt"
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
)

// Example checks the corpus in testdata/example: acpsnap.yml there names
// the agent (example-agent, which TestMain serves with Main). In a test
// file of your module the test is the function given to runTest:
//
//	func TestACP(t *testing.T) {
//		acpsnaptest.Run(t, acpsnaptest.Params{Dir: "testdata/example"})
//	}
func Example() {
	passed := runTest("TestACP", func(t *testing.T) {
		acpsnaptest.Run(t, acpsnaptest.Params{Dir: "testdata/example"})
	})
	fmt.Println("passed:", passed)
	// Output: passed: true
}

// runTest runs f as the test function name, as go test does, with its
// progress lines off (an example's output is what it prints).
func runTest(name string, f func(*testing.T)) bool {
	if v := flag.Lookup("test.v"); v != nil {
		old := v.Value.String()
		v.Value.Set("false")
		defer v.Value.Set(old)
	}
	all := func(pat, str string) (bool, error) { return true, nil }
	return testing.RunTests(all, []testing.InternalTest{{Name: name, F: f}})
}
