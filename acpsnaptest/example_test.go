package acpsnaptest_test

import (
	"flag"
	"fmt"
	"os"
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
	passed, _ := runTest("TestACP", func(t *testing.T) {
		acpsnaptest.Run(t, acpsnaptest.Params{Dir: "testdata/example"})
	})
	fmt.Println("passed:", passed)
	// Output: passed: true
}

// runTest runs f as the test function name, as go test does, and returns
// whether it passed and what it printed (its progress lines off: an
// example's output is what it prints itself).
func runTest(name string, f func(*testing.T)) (bool, string) {
	return runTestMatching(func(pat, str string) (bool, error) { return true, nil }, name, f)
}

// runTestMatching is runTest with the matcher that filters names by the
// -test.run pattern.
func runTestMatching(match func(pat, str string) (bool, error), name string, f func(*testing.T)) (bool, string) {
	if v := flag.Lookup("test.v"); v != nil {
		old := v.Value.String()
		v.Value.Set("false")
		defer v.Value.Set(old)
	}
	out, err := os.CreateTemp("", "acpsnaptest-out-")
	if err != nil {
		return false, err.Error()
	}
	defer os.Remove(out.Name())
	stdout := os.Stdout
	os.Stdout = out
	ok := testing.RunTests(match, []testing.InternalTest{{Name: name, F: f}})
	os.Stdout = stdout
	b, _ := os.ReadFile(out.Name())
	out.Close()
	return ok, string(b)
}
