package relay

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/normalize"
)

// pathTokens are the run's paths and their tokens, for payloads that
// travel to and from the model.
type pathTokens struct {
	replacer, reverse *strings.Replacer
	paths             *strings.Replacer // normalize's path tokens
}

func newPathTokens(rts *harvest.Roots) pathTokens {
	// The slug spelling ("/tmp/x/workspace" → "-tmp-x-workspace") is not a
	// path, so normalize cannot know it; it becomes {{cwdSlug}} here.
	var pairs []string
	for _, c := range append([]string{rts.Cwd}, normalize.Aliases(rts.Cwd)...) {
		pairs = append(pairs, slug(c), "{{cwdSlug}}")
	}
	return pathTokens{replacer: strings.NewReplacer(pairs...),
		reverse: strings.NewReplacer("{{cwdSlug}}", slug(rts.Cwd)), paths: normalize.Expander(rts.Cwd, rts.Home, rts.Base)}
}

// slug is a path as Claude Code names its per-project folders: every
// character that is not an ASCII letter or digit becomes "-" (one per
// UTF-16 unit: it is JavaScript's replace(/[^a-zA-Z0-9]/g, "-")).
func slug(path string) string {
	var b strings.Builder
	for _, r := range path {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

func (p pathTokens) tokenize(b []byte) []byte { return []byte(p.replacer.Replace(string(b))) }
func (p pathTokens) expand(b []byte) []byte {
	return []byte(p.paths.Replace(p.reverse.Replace(string(b))))
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
