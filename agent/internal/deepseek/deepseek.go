package deepseek

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/openaichat"
	"github.com/acpsnap/acpsnap/model"
)

// Defaults of Config.
const (
	DefaultBaseURL = "https://api.deepseek.com"
	DefaultModel   = "deepseek-chat"
)

// SpawnedByHeader carries model.Request.SpawnedBy so that a replay Server
// can route a child session's calls to its script.
const SpawnedByHeader = wire.SpawnedByHeader

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// Config configures a Provider.
type Config struct {
	// APIKey is sent as "Authorization: Bearer <APIKey>".
	APIKey string
	// BaseURL is the API root; "" means DefaultBaseURL. A trailing slash
	// or a "/v1" suffix is fine: requests go to BaseURL + "/chat/completions".
	BaseURL string
	// Model is the model name; "" means DefaultModel. model.Request.Model
	// overrides it when set.
	Model string
	// HTTPClient sends the requests; nil means a client with connect, TLS
	// and response-header timeouts but no overall timeout (a stream lasts
	// as long as the model writes; cancel it through the context).
	HTTPClient *http.Client
	// MaxTokens is sent as max_tokens; 0 means the API's default.
	// model.Request.MaxTokens overrides it when set.
	MaxTokens int
}

// Provider streams chat completions from DeepSeek (or any server speaking
// the same OpenAI-compatible dialect, such as replay.Server). It
// implements model.Provider and is safe for concurrent use.
type Provider struct {
	cfg    Config
	url    string
	client *http.Client
}

var _ model.Provider = (*Provider)(nil)

// New returns a Provider for cfg.
func New(cfg Config) *Provider {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	client := cfg.HTTPClient
	if client == nil {
		client = defaultClient()
	}
	return &Provider{cfg: cfg, url: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions", client: client}
}

// defaultClient bounds connecting and waiting for the response headers,
// never the stream itself.
func defaultClient() *http.Client {
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 3 * time.Minute,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          10,
	}}
}

// Stream sends req as one streaming chat completion and calls emit with
// each chunk, in canonical order, from the calling goroutine. It returns
// nil after the finish chunk; ctx.Err() when ctx is cancelled; the error
// of emit as is; or a *model.ProviderError (see the package doc for
// the codes). Stream never retries.
func (p *Provider) Stream(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
	body, err := p.body(req)
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("deepseek: build request: %w", err)
	}
	hreq.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if req.SpawnedBy != "" {
		hreq.Header.Set(SpawnedByHeader, req.SpawnedBy)
	}
	resp, err := p.client.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &model.ProviderError{Code: "UNAVAILABLE", Message: err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !openaichat.IsEventStream(resp.Header.Get("Content-Type")) {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		perr := openaichat.ResponseError(resp.StatusCode, resp.Status, resp.Header.Get("Content-Type"), body)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return perr
	}
	var emitErr error
	err = openaichat.Decode(resp.Body, func(c model.Chunk) error {
		if err := emit(c); err != nil {
			emitErr = err
			return err
		}
		return nil
	})
	switch {
	case emitErr != nil:
		return emitErr
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	}
	return err
}

// body renders req as the JSON request body, with the Config's defaults.
func (p *Provider) body(req model.Request) ([]byte, error) {
	if req.Model == "" {
		req.Model = p.cfg.Model
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = p.cfg.MaxTokens
	}
	b, err := openaichat.RequestBody(req)
	if err != nil {
		return nil, fmt.Errorf("deepseek: build request: %w", err)
	}
	return b, nil
}
