// Package viceagent is an ACP agent with one vice of each kind that
// `acpsnap probe` reports, for its tests: an agent over HTTP (OpenAI chat
// completions at $OPENAI_BASE_URL, key $OPENAI_API_KEY) that answers each
// prompt with the model's text and
//
//   - puts a random traceId in the _meta of every message chunk (stdout);
//   - sends a random metadata.trace_id in every model request;
//   - looks up telemetry.vice-agent.example at session/new, unless
//     VICE_TELEMETRY=0;
//   - connects to UpdateAddr (TCP) at session/new, an update check with
//     no switch of its own (tests outside the offline namespace set
//     VICE_UPDATES=0, so that no packet leaves the machine);
//   - asks the model for a conversation title after each prompt's answer,
//     unless VICE_TITLES=0;
//   - puts today's date in a system message of every turn, unless
//     VICE_DATE=0;
//   - retries a model call answered 429 once, at once, as the OpenAI and
//     Anthropic SDKs do;
//   - takes ExitDelay to exit after stdin EOF (SIGTERM ends it at once);
//   - writes $HOME/.vice/state.json at start.
//
// With VICE_SYSTEM_FILE set it opens each prompt's conversation with a
// system message holding that file's text: an agent that puts what it read
// into its prompt, for the secret scan's tests. With VICE_SYSTEM_LS=1 that
// message then lists the session's cwd, as mistral-vibe and kimi do: a
// system prompt that differs per workspace, for the pins' tests. With
// VICE_FLOOD=N it sends N tiny model requests (eight at a time, answers
// ignored) after each prompt's answer and before ending the turn: a flood,
// for the call cap's tests and scripts/flood.
//
// Main runs it on stdin and stdout; the test binary of cmd/acpsnap runs it
// as the command viceagent.
package viceagent

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// TelemetryHost is the made-up host the agent looks up.
const TelemetryHost = "telemetry.vice-agent.example"

// UpdateAddr is where the agent connects at session/new: an address of
// TEST-NET-1, which no network routes.
const UpdateAddr = "192.0.2.1:443"

// ExitDelay is how long the agent takes to exit after stdin EOF: longer
// than probe.SlowExit (500 ms), so probe calls it slow.
const ExitDelay = 700 * time.Millisecond

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

type agent struct {
	out     *json.Encoder
	baseURL string
	key     string
	client  *http.Client
	cwd     string // the last session/new's
}

// Main runs the agent until stdin ends (then ExitDelay) or SIGTERM, and
// returns its exit code.
func Main() int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		<-sigs
		os.Exit(0)
	}()
	if home, err := os.UserHomeDir(); err == nil {
		os.MkdirAll(filepath.Join(home, ".vice"), 0o755)
		os.WriteFile(filepath.Join(home, ".vice", "state.json"), []byte(`{"started":true}`+"\n"), 0o644)
	}
	a := &agent{out: json.NewEncoder(os.Stdout), baseURL: os.Getenv("OPENAI_BASE_URL"), key: os.Getenv("OPENAI_API_KEY"),
		client: &http.Client{Timeout: 10 * time.Second}}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil || m.Method == "" {
			continue // answers and notifications: nothing to do
		}
		if err := a.handle(m); err != nil {
			fmt.Fprintln(os.Stderr, "viceagent:", err)
			return 1
		}
	}
	time.Sleep(ExitDelay) // "flushing telemetry"
	return 0
}

func (a *agent) reply(id json.RawMessage, result any) error {
	return a.out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (a *agent) handle(m message) error {
	switch m.Method {
	case "initialize":
		return a.reply(m.ID, map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{},
			"agentInfo": map[string]any{"name": "viceagent", "version": "1.0.0"}})
	case "session/new":
		if os.Getenv("VICE_TELEMETRY") != "0" {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			(&net.Resolver{PreferGo: true}).LookupHost(ctx, TelemetryHost)
			cancel()
		}
		if os.Getenv("VICE_UPDATES") != "0" {
			if c, err := net.DialTimeout("tcp", UpdateAddr, 2*time.Second); err == nil {
				c.Close()
			}
		}
		var p struct {
			Cwd string `json:"cwd"`
		}
		json.Unmarshal(m.Params, &p)
		a.cwd = p.Cwd
		return a.reply(m.ID, map[string]any{"sessionId": "vice-session"})
	case "session/prompt":
		return a.prompt(m)
	}
	return a.out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
}

func (a *agent) prompt(m message) error {
	var p struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	json.Unmarshal(m.Params, &p)
	text := ""
	for _, b := range p.Prompt {
		text += b.Text
	}
	msgs := []map[string]string{{"role": "user", "content": text}}
	if system := a.system(); system != "" {
		msgs = append([]map[string]string{{"role": "system", "content": system}}, msgs...)
	}
	if os.Getenv("VICE_DATE") != "0" {
		msgs = append([]map[string]string{{"role": "system", "content": "You are vice.\nToday's date is " + time.Now().Format("2006-01-02") + "."}}, msgs...)
	}
	answer, err := a.complete(msgs)
	if err != nil {
		return err
	}
	a.flood(os.Getenv("VICE_FLOOD"))
	if err := a.out.Encode(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
		"sessionId": p.SessionID, "update": map[string]any{"sessionUpdate": "agent_message_chunk",
			"content": map[string]any{"type": "text", "text": answer}, "_meta": map[string]any{"traceId": random()}}}}); err != nil {
		return err
	}
	if err := a.reply(m.ID, map[string]any{"stopReason": "end_turn"}); err != nil {
		return err
	}
	if os.Getenv("VICE_TITLES") != "0" {
		a.complete([]map[string]string{{"role": "system", "content": "Generate a short title for this conversation."}, {"role": "user", "content": text}})
	}
	return nil
}

// system is the system message of a prompt's conversation: the text of
// VICE_SYSTEM_FILE, then, with VICE_SYSTEM_LS=1, the cwd's entries.
func (a *agent) system() string {
	var s string
	if name := os.Getenv("VICE_SYSTEM_FILE"); name != "" {
		b, _ := os.ReadFile(name)
		s = string(b)
	}
	if os.Getenv("VICE_SYSTEM_LS") == "1" {
		entries, _ := os.ReadDir(a.cwd)
		s += "The workspace holds:"
		for _, e := range entries {
			s += " " + e.Name()
		}
		s += "."
	}
	return s
}

// flood sends n (a decimal count) tiny requests, eight at a time, and
// ignores their answers.
func (a *agent) flood(n string) {
	count, _ := strconv.Atoi(n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				a.complete([]map[string]string{{"role": "user", "content": "flood " + strconv.Itoa(i)}})
			}
		}()
	}
	for i := range count {
		next <- i
	}
	close(next)
	wg.Wait()
}

// complete is one chat completion (not streamed); its text. A 429 is
// retried once with the same request.
func (a *agent) complete(msgs []map[string]string) (string, error) {
	body, _ := json.Marshal(map[string]any{"model": "vice-1", "stream": false, "messages": msgs,
		"metadata": map[string]any{"trace_id": random()}})
	status, b, err := a.post(body)
	if status == http.StatusTooManyRequests {
		status, b, err = a.post(body)
	}
	if err != nil {
		return "", err
	}
	var r struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if status != http.StatusOK || json.Unmarshal(b, &r) != nil || len(r.Choices) == 0 {
		return "", fmt.Errorf("model: status %d: %.200s", status, b)
	}
	return r.Choices[0].Message.Content, nil
}

// post sends one chat-completions request body; its status and body.
func (a *agent) post(body []byte) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, a.baseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.key)
	resp, err := a.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, nil
}

func random() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
