package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestDisguisedSecrets: a hostile upstream or agent that reflects the key
// reversed, as hex, base64 (alone or inside a longer encoded text, at every
// alignment, in both alphabets), percent-escaped (every byte, either case,
// twice) or \u-escaped gets it no further than the raw key: Find names the
// line and the variable.
func TestDisguisedSecrets(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	s := New(map[string]string{"OPENAI_API_KEY": key}, nil)
	pct := func(v string, upper bool) string {
		var sb strings.Builder
		for _, c := range []byte(v) {
			f := "%%%02x"
			if upper {
				f = "%%%02X"
			}
			fmt.Fprintf(&sb, f, c)
		}
		return sb.String()
	}
	uesc := func(v, slashes string) string {
		var sb strings.Builder
		for _, c := range v {
			fmt.Fprintf(&sb, "%su%04x", slashes, c)
		}
		return sb.String()
	}
	cases := map[string]string{
		"raw":                      key,
		"reversed":                 string(reversed([]byte(key))),
		"hex":                      hex.EncodeToString([]byte(key)),
		"HEX":                      strings.ToUpper(hex.EncodeToString([]byte(key))),
		"base64":                   base64.StdEncoding.EncodeToString([]byte(key)),
		"base64 url":               base64.URLEncoding.EncodeToString([]byte("\xff\xfe" + key)),
		"base64 in a blob, at 0":   base64.StdEncoding.EncodeToString([]byte(`{"k":"` + key + `"}`)),
		"base64 in a blob, at 1":   base64.StdEncoding.EncodeToString([]byte(`{"k": "` + key + `"}`)),
		"base64 in a blob, at 2":   base64.StdEncoding.EncodeToString([]byte(`{"k":  "` + key + `"}`)),
		"percent, every byte":      pct(key, false),
		"percent, every byte, UP":  pct(key, true),
		"percent, mixed":           pct(key[:5], true) + key[5:10] + pct(key[10:], false),
		"percent, twice":           strings.ReplaceAll(pct(key, true), "%", "%25"),
		"query escape":             url.QueryEscape(key),
		"\\u escapes":              uesc(key, `\`),
		"\\u escapes in JSON text": uesc(key, `\\`),
	}
	for name, disguised := range cases {
		log := "{\"type\":\"session\"}\n{\"data\":\"" + disguised + "\"}\n"
		h, ok := s.Find([]byte(log))
		if !ok || h != (Hit{2, "OPENAI_API_KEY"}) {
			t.Errorf("%s (%s): Find = %+v %v, want line 2 OPENAI_API_KEY", name, disguised, h, ok)
		}
	}
	// An escaped line break moves no line.
	if h, ok := s.Find([]byte("a%0Ab\n%0A" + pct(key, false))); !ok || h.Line != 2 {
		t.Errorf("Find after escaped line breaks = %+v %v, want line 2", h, ok)
	}
	for _, clean := range []string{"{}", "%zz %4", `\u12`, base64.StdEncoding.EncodeToString([]byte("sk-live-")), "100% sure \\u00e9"} {
		if h, ok := s.Find([]byte(clean)); ok {
			t.Errorf("Find(%q) = %+v: a hit in clean text", clean, h)
		}
	}
	if got := s.Redact("r=" + string(reversed([]byte(key))) + " h=" + hex.EncodeToString([]byte(key))); got != "r=[OPENAI_API_KEY] h=[OPENAI_API_KEY]" {
		t.Errorf("Redact = %q", got)
	}
}

// BenchmarkFind scans 16 MiB of JSON lines for five secrets.
func BenchmarkFind(b *testing.B) {
	env := []string{"A_KEY=sk-aaaaaaaaaaaaaaaa", "B_TOKEN=ghp_bbbbbbbbbbbbbbbbbbbb", "C_SECRET=cccccccccccccccc", "D_KEY=dddddddddddddddddddd", "E_PASSWORD=eeeeeeeeeeee"}
	s := New(nil, env)
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"update":{"content":{"text":"The quick brown fox 100% jumps","type":"text"}}}}` + "\n"
	buf := []byte(strings.Repeat(line, 16<<20/len(line)))
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		s.Find(buf)
	}
}
