package subagent

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Redacted replaces every secret in what a cassette stores.
const Redacted = "[REDACTED]"

// secretKeys are member names (lower case, without "_" and "-") whose
// values are replaced whole. The list is exact on purpose: "maxTokens",
// "tokenCount" or "inputTokens" are counts, not credentials.
var secretKeys = map[string]bool{
	"apikey": true, "xapikey": true, "apitoken": true, "token": true, "accesstoken": true,
	"refreshtoken": true, "idtoken": true, "authtoken": true, "bearertoken": true,
	"sessiontoken": true, "secret": true, "clientsecret": true, "secretkey": true,
	"secretaccesskey": true, "password": true, "passwd": true, "passphrase": true,
	"authorization": true, "proxyauthorization": true, "cookie": true, "setcookie": true,
	"privatekey": true, "credentials": true,
}

// credentialPatterns are the built-in patterns for credentials inside any
// string. Each is anchored on a vendor prefix or a PEM armour, so a
// tool-call id ("call_0a1b…", "toolu_01…") or a "sha256:<hex>" digest does
// not match. Compiled when first needed, not at every process's start.
var credentialPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}`),
		regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}`),
		regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,}`),
		regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
		regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),
		regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),
		regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
		regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*`),
		regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`),
	}
})

// structuralKeys are members redaction never rewrites: they say what a
// value is, not what it holds. A pattern that matches one refuses the
// recording instead (a redacted "type" would make the value unreadable).
var structuralKeys = map[string]bool{"type": true, "mediaType": true, "media_type": true, "mimeType": true}

// redactor rewrites secrets in decoded JSON trees.
type redactor struct {
	on    bool
	extra []*regexp.Regexp
}

// compilePatterns compiles the user's patterns case-insensitively.
func compilePatterns(srcs []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for i, s := range srcs {
		if s == "" {
			return nil, fmt.Errorf("redactionPatterns[%d]: empty pattern", i)
		}
		re, err := regexp.Compile("(?i)" + s)
		if err != nil {
			return nil, fmt.Errorf("redactionPatterns[%d]: %w", i, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("redactionPatterns[%d]: the pattern matches the empty string", i)
		}
		out = append(out, re)
	}
	return out, nil
}

// tree redacts a decoded JSON value; changed says whether anything was
// replaced.
func (r *redactor) tree(v any) (out any, changed bool, err error) {
	if !r.on && len(r.extra) == 0 {
		return v, false, nil
	}
	switch t := v.(type) {
	case string:
		s, ch := r.text(t)
		return s, ch, nil
	case []any:
		res := make([]any, len(t))
		for i, e := range t {
			var ch bool
			if res[i], ch, err = r.tree(e); err != nil {
				return nil, false, err
			}
			changed = changed || ch
		}
		return res, changed, nil
	case map[string]any:
		return r.object(t)
	}
	return v, false, nil
}

func (r *redactor) object(m map[string]any) (any, bool, error) {
	res := map[string]any{}
	changed := false
	for k, v := range m {
		switch s, isStr := v.(string); {
		case structuralKeys[k] && isStr:
			if _, ch := r.text(s); ch {
				return nil, false, fmt.Errorf("a redaction pattern matches the structural member %q", k)
			}
			res[k] = v
		case r.on && secretKeys[normalKey(k)] && v != nil:
			res[k] = Redacted
			changed = true
		default:
			out, ch, err := r.tree(v)
			if err != nil {
				return nil, false, err
			}
			res[k] = out
			changed = changed || ch
		}
	}
	return res, changed, nil
}

// text replaces every credential-pattern match in s.
func (r *redactor) text(s string) (string, bool) {
	out := s
	if r.on {
		for _, re := range credentialPatterns() {
			out = re.ReplaceAllLiteralString(out, Redacted)
		}
	}
	for _, re := range r.extra {
		out = re.ReplaceAllLiteralString(out, Redacted)
	}
	return out, out != s
}

func normalKey(k string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
}
