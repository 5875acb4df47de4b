// Package envscrub removes from an environment what no process an agent
// runs for a model may see: the model provider's variables (DEEPSEEK_*, the
// API key among them) and acpsnap's own (ACPSNAP_*, which hold machine
// paths). A command such as env would otherwise print a key into a
// recorded fixture, or make a replay differ from its recording.
package envscrub

import "strings"

// Prefixes are the variable-name prefixes Scrub removes, compared without
// regard to case.
var Prefixes = []string{"DEEPSEEK_", "ACPSNAP_"}

// Scrub returns environ ("NAME=value" entries) without the variables whose
// name starts with one of Prefixes and without those named in names.
func Scrub(environ []string, names ...string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !drop(name, names) {
			out = append(out, kv)
		}
	}
	return out
}

func drop(name string, names []string) bool {
	upper := strings.ToUpper(name)
	for _, p := range Prefixes {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
