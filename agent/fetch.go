package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/model"
)

// Bounds of one fetch.
const (
	fetchTimeout  = 30 * time.Second
	maxFetchBytes = 1 << 20 // the body read; the result is then capped like every tool's
)

var fetchTool = &tool{
	spec: model.ToolSpec{
		Name:        toolFetch,
		Description: "Fetch a URL with HTTP GET and return its status, content type and text body. A status of 400 or above is an error.",
		Parameters: []byte(`{"type":"object","properties":{` +
			`"url":{"type":"string","description":"an http or https URL"}},` +
			`"required":["url"],"additionalProperties":false}`),
	},
	kind:   acp.ToolKindFetch,
	title:  titled("Fetch", "url", "Fetch"),
	exec:   runFetch,
	render: renderFetch,
}

// fetchValue is what fetch records in a tool cassette: the response,
// which renderFetch turns into the result text.
type fetchValue struct {
	Status      int    `json:"status"`
	ContentType string `json:"contentType,omitempty"`
	Body        string `json:"body"`             // valid UTF-8 text, or "" when Binary
	Size        int    `json:"size"`             // bytes read (at most maxFetchBytes)
	Truncated   bool   `json:"truncated"`        // the body was longer than maxFetchBytes
	Binary      bool   `json:"binary,omitempty"` // the body is not UTF-8 text
}

func runFetch(t *turn, c model.ToolCall) (json.RawMessage, error) {
	var a struct {
		URL string `json:"url"`
	}
	if err := decodeArgs(c.Arguments, &a); err != nil {
		return nil, err
	}
	u, err := url.Parse(a.URL)
	switch {
	case strings.TrimSpace(a.URL) == "":
		return nil, errors.New("url is required")
	case err != nil:
		return nil, fmt.Errorf("url: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("url %q: only http and https are fetched", a.URL)
	}
	v, err := get(t, u.String())
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// get performs the GET within fetchTimeout and reads at most
// maxFetchBytes of the body.
func get(t *turn, u string) (fetchValue, error) {
	ctx, cancel := context.WithTimeout(t.ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fetchValue{}, fmt.Errorf("fetch: %v", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fetchValue{}, fmt.Errorf("fetch: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxFetchBytes+1))
	if err != nil {
		return fetchValue{}, fmt.Errorf("fetch: read the body: %v", err)
	}
	v := fetchValue{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	if len(b) > maxFetchBytes {
		b, v.Truncated = b[:maxFetchBytes], true
		for len(b) > 0 && !utf8.Valid(b) && len(b) > maxFetchBytes-utf8.UTFMax {
			b = b[:len(b)-1] // cut on a character boundary
		}
	}
	v.Size = len(b)
	if utf8.Valid(b) {
		v.Body = string(b)
	} else {
		v.Binary = true
	}
	return v, nil
}

// renderFetch is fetch's result text: "HTTP 200 (text/plain)", a blank
// line, the body (capped like every tool result). A status of 400 or more
// is an error result.
func renderFetch(raw json.RawMessage) (string, error) {
	var v fetchValue
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("tool cassette: the recorded fetch value: %v (record again)", err)
	}
	head := fmt.Sprintf("HTTP %d", v.Status)
	if v.ContentType != "" {
		head += " (" + v.ContentType + ")"
	}
	body := v.Body
	switch {
	case v.Binary:
		body = fmt.Sprintf("[%d bytes of binary content]", v.Size)
	case v.Truncated:
		body += fmt.Sprintf("\n[truncated: the body is longer than %d bytes]", maxFetchBytes)
	}
	text := truncate(head + "\n\n" + body)
	if v.Status >= 400 {
		return "", errors.New(text)
	}
	return text, nil
}
