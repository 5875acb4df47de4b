package secrets

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// MinLen is the shortest value treated as a secret: shorter values ("1",
// "true", a port) would match everywhere and say nothing.
const MinLen = 8

// suffixes are the name endings (upper-cased) of key-looking variables.
var suffixes = []string{"_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_CREDENTIALS"}

// LooksSecret reports whether a variable name looks like it holds a key
// (compared without regard to case): …_KEY (…_API_KEY among them),
// …_TOKEN, …_SECRET, …_PASSWORD, …_PASSWD, …_CREDENTIALS, or one of those
// words alone.
func LooksSecret(name string) bool {
	upper := strings.ToUpper(name)
	for _, s := range suffixes {
		if strings.HasSuffix(upper, s) || upper == s[1:] {
			return true
		}
	}
	return false
}

// Set is a set of secret values, each with the name it came from.
type Set struct {
	secrets []secret // longest value first, so a longer secret wins a redaction
}

type secret struct {
	name, value string
	forms       [][]byte // the value and its disguises
}

// New returns the Set of the values of every key-looking variable
// (LooksSecret) in secrets and in environ ("NAME=value" entries), values
// shorter than MinLen left out: a model name or a base URL passed with the
// key may rightly show in a fixture.
func New(secrets map[string]string, environ []string) *Set {
	s := &Set{}
	seen := map[string]bool{}
	add := func(name, value string) {
		if len(value) >= MinLen && !seen[value] {
			seen[value] = true
			s.secrets = append(s.secrets, secret{name, value, disguises(value)})
		}
	}
	names := make([]string, 0, len(secrets))
	for n := range secrets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if LooksSecret(n) { // DEEPSEEK_MODEL or a base URL may show in a log
			add(n, secrets[n])
		}
	}
	for _, kv := range environ {
		if name, value, ok := strings.Cut(kv, "="); ok && LooksSecret(name) {
			add(name, value)
		}
	}
	sort.SliceStable(s.secrets, func(i, j int) bool { return len(s.secrets[i].value) > len(s.secrets[j].value) })
	return s
}

// Len is the number of secret values the set knows.
func (s *Set) Len() int { return len(s.secrets) }

// Hit is where a secret value was found.
type Hit struct {
	Line int    // 1-based line of the first occurrence
	Name string // the variable whose value it is
}

// Find returns the first secret found in b, if any: in any of its forms,
// in b or, past it, in b with its escapes undone (views); the first by
// position in the first view that holds one.
func (s *Set) Find(b []byte) (Hit, bool) {
	for _, v := range views(b) {
		best, name := -1, ""
		for _, sec := range s.secrets {
			for _, f := range sec.forms {
				if i := bytes.Index(v, f); i >= 0 && (best < 0 || i < best) {
					best, name = i, sec.name
				}
			}
		}
		if best >= 0 {
			return Hit{Line: 1 + bytes.Count(v[:best], []byte("\n")), Name: name}, true
		}
	}
	return Hit{}, false
}

// Check returns a *LeakError naming file, line and variable when b holds
// a secret value: "file:17: holds the value of NAME; nothing is written or
// shown".
func (s *Set) Check(file string, b []byte) error {
	if h, ok := s.Find(b); ok {
		return &LeakError{File: file, Hit: h}
	}
	return nil
}

// LeakError is Check's refusal: what would be written to or shown as File
// holds the value of a secret at Hit. A command ends with it as a failure
// (exit 1), not as an internal error.
type LeakError struct {
	File string
	Hit  Hit
}

func (e *LeakError) Error() string {
	return fmt.Sprintf("secrets: %s:%d: holds the value of %s; nothing is written or shown", e.File, e.Hit.Line, e.Hit.Name)
}

// Redact replaces every secret value in text, and each of its disguises
// (not its escaped forms), with "[NAME]".
func (s *Set) Redact(text string) string {
	for _, sec := range s.secrets {
		for _, f := range sec.forms {
			if strings.Contains(text, string(f)) {
				text = strings.ReplaceAll(text, string(f), "["+sec.name+"]")
			}
		}
	}
	return text
}
