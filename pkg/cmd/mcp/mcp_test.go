package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
	server "github.com/tilookup/tilookup/pkg/mcp"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// lockedBuffer is a buffer the server goroutine writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "0.0.0.0:8765"}, "only a loopback address"},
		{[]string{"--http", "192.168.1.2:80"}, "only a loopback address"},
		{[]string{"--http", "8765"}, "want 127.0.0.1:PORT"},
		{[]string{"--http-token-file", "tok"}, "only goes with --http"},
		{[]string{"-c", "0"}, "--concurrency"},
		{[]string{"--rate", "-1"}, "--rate"},
		{[]string{"extra"}, "unknown command"},
		{[]string{"--tools", "search,lookup"}, `unknown tool "lookup": the tools are ` + strings.Join(server.ToolNames(), ", ")},
		{[]string{"--tools", ""}, "--tools needs at least one of: search"},
	} {
		ios, _, _, _ := iostreams.Test()
		ran := false
		cmd := NewCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(context.Context, *Options) error { ran = true; return nil })
		cmd.SetArgs(c.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if err == nil || ran || !strings.Contains(err.Error(), c.want) || failure.ExitCode(err) != failure.ExitUsage {
			t.Errorf("%v: err %v (exit %d), ran %v; want exit 2 with %q", c.args, err, failure.ExitCode(err), ran, c.want)
		}
	}
}

// --tools completes the tools' names, one after each comma, leaving out
// those already given.
func TestCompleteTools(t *testing.T) {
	got, _ := completeTools(nil, nil, "search,pi")
	want := []string{}
	for _, n := range server.ToolNames() {
		if n != "search" {
			want = append(want, "search,"+n)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// testOptions serve against a sandbox of their own.
func testOptions(t *testing.T, ios *iostreams.IOStreams, budget string) *Options {
	t.Helper()
	srv, err := sandbox.Start(sandbox.Options{}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	transport := api.DefaultTransport(4)
	t.Cleanup(transport.CloseIdleConnections)
	return &Options{
		IO:      ios,
		Version: "test",
		Client: func(online.ClientFor, int) (*api.Client, error) {
			return api.New(api.Options{BaseURL: srv.SearchURL, EventsBaseURL: srv.EventsURL, Token: sandbox.DemoToken, Transport: transport}, false)
		},
		Setting: func(key string) (string, error) {
			if key == "mcp_max_bytes" {
				return budget, nil
			}
			return "", nil
		},
		Concurrency: 4,
	}
}

func TestStdio(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ios.In, ios.Out = inR, outW
	opts := testOptions(t, ios, "30KiB")
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), opts) }()

	send := func(msg string) { _, _ = io.WriteString(inW, msg+"\n") }
	replies := bufio.NewScanner(outR)
	replies.Buffer(nil, 1<<20)
	next := func() map[string]any {
		if !replies.Scan() {
			t.Fatalf("no reply: %v", replies.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(replies.Bytes(), &m); err != nil {
			t.Fatalf("stdout is not only JSON-RPC: %q", replies.Text())
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if info := next()["result"].(map[string]any)["serverInfo"].(map[string]any); info["name"] != "tilookup" {
		t.Fatalf("serverInfo %v", info)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"values":["44d88612fea8a8f36de82e1278abb02f"]}}}`)
	res := next()["result"].(map[string]any)
	if res["isError"] == true || !strings.Contains(res["content"].([]any)[0].(map[string]any)["text"].(string), "Malware samples") {
		t.Fatalf("search over stdio: %v", res)
	}
	inW.Close() // the assistant went away
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after EOF: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop at the end of stdin")
	}
}

var listening = regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`)

func TestHTTP(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	errOut := &lockedBuffer{}
	ios.ErrOut = errOut
	tokenFile := filepath.Join(t.TempDir(), "token")
	token := "0123456789abcdef-token"
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t, ios, "30KiB")
	opts.HTTP, opts.TokenFile = "127.0.0.1:0", tokenFile
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, opts) }()

	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		url = listening.FindString(errOut.String())
	}
	if url == "" {
		t.Fatalf("no address on stderr: %q", errOut.String())
	}
	if strings.Contains(errOut.String(), token) {
		t.Fatal("a token from a file was printed")
	}
	post := func(auth string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(""); got != http.StatusUnauthorized {
		t.Errorf("no token: %d", got)
	}
	if got := post("Bearer " + token); got != http.StatusOK {
		t.Errorf("the token: %d", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run after Ctrl-C: %v", err)
	}
}

func TestGeneratedTokenIsPrinted(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	errOut := &lockedBuffer{}
	ios.ErrOut = errOut
	opts := testOptions(t, ios, "30KiB")
	opts.HTTP = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, opts) }()
	tokenLine := regexp.MustCompile(`Bearer token: ([A-Za-z0-9_-]{40,})\n`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		m = tokenLine.FindStringSubmatch(errOut.String())
	}
	cancel()
	<-done
	if m == nil {
		t.Fatalf("no generated token on stderr: %q", errOut.String())
	}
}

func TestBadSettings(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	opts := testOptions(t, ios, "1KiB")
	if err := run(context.Background(), opts); failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), "mcp_max_bytes") {
		t.Fatalf("a budget below the minimum: %v", err)
	}
	opts = testOptions(t, ios, "30KiB")
	opts.HTTP, opts.TokenFile = "127.0.0.1:0", filepath.Join(t.TempDir(), "short")
	_ = os.WriteFile(opts.TokenFile, []byte("abc\n"), 0o600)
	if err := run(context.Background(), opts); failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), "at least 16") {
		t.Fatalf("a short token: %v", err)
	}
	opts.TokenFile = filepath.Join(t.TempDir(), "missing")
	if err := run(context.Background(), opts); failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("a missing token file: %v", err)
	}
}

// A hostile or broken client cannot end the session or hang the server
// (issue 28): a line that is not JSON, one that is not JSON-RPC, one over
// the frame cap and a request whose id is in flight each get a JSON-RPC
// error while a call is in flight, whose answer still arrives; at the end
// of input the server answers what it owes and exits.
func TestStdioBadLines(t *testing.T) {
	release := make(chan struct{})
	s := server.New(server.Config{
		Version: "test",
		Searcher: func(int) (lookup.Searcher, error) {
			return lookup.SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
				<-release
				return api.DecodeSearch([]byte(`{"query":"` + v + `","results":[]}`))
			}), nil
		},
		MaxBytes: server.DefaultMaxBytes,
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serveIO(context.Background(), s, inR, outW) }()
	send := func(msg string) { _, _ = io.WriteString(inW, msg+"\n") }
	lines := make(chan []byte)
	go func() {
		replies := bufio.NewScanner(outR)
		replies.Buffer(nil, 1<<20)
		for replies.Scan() {
			lines <- bytes.Clone(replies.Bytes())
		}
		close(lines)
	}()
	next := func() map[string]any {
		t.Helper()
		var line []byte
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("stdout ended: the session is over")
			}
			line = l
		case <-time.After(10 * time.Second):
			t.Fatal("no reply")
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("stdout is not only JSON-RPC: %q", line)
		}
		return m
	}
	wantError := func(id any, code float64) {
		t.Helper()
		m := next()
		e, _ := m["error"].(map[string]any)
		if m["id"] != id || e == nil || e["code"] != code {
			t.Fatalf("want error %v for id %v, got %v", code, id, m)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"values":["a.example"]}}}`)
	send(`this is not json`)
	wantError(nil, -32700)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"values":["b.example"]}}}`)
	wantError(2.0, -32600)
	send(`{"hello":"world"}`)
	wantError(nil, -32600)
	// Batches: the SDK ends the session on them.
	send(`[]`)
	wantError(nil, -32600)
	send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	wantError(nil, -32600)
	go send(`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", maxFrame) + `"}}`)
	wantError(nil, -32600)
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := next(); m["id"] != 3.0 || m["result"] == nil {
		t.Fatalf("ping after bad lines: %v", m)
	}
	// The same id again, then the end of input: the server answers the
	// call in flight and exits.
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"values":["c.example"]}}}`)
	wantError(2.0, -32600)
	inW.Close()
	close(release)
	if m := next(); m["id"] != 2.0 || m["result"] == nil || m["result"].(map[string]any)["isError"] == true {
		t.Fatalf("the call in flight: %v", m)
	}
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("run after EOF: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop at the end of stdin")
	}
}

func TestSkipperFromSettings(t *testing.T) {
	dir := t.TempDir()
	allow := filepath.Join(dir, "allow.txt")
	if err := os.WriteFile(allow, []byte("# ours\n198.51.100.0/24\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{"allowlist": allow}
	c := &clients{opts: &Options{Setting: func(k string) (string, error) { return settings[k], nil }}}
	s, err := c.skipper()
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Reason("198.51.100.7", "ipv4"); r == "" {
		t.Error("the allow-list of the settings is not used")
	}
	if r := s.Reason("10.0.0.1", "ipv4"); r != "private address" {
		t.Errorf("noise: %q", r)
	}
	settings["allowlist"] = filepath.Join(dir, "missing.txt")
	c = &clients{opts: c.opts}
	if _, err := c.skipper(); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Fatalf("a missing allow-list: %v", err)
	}
}

// --rate holds for the whole server: every call searches through one
// client, whose limiter is the rate (a client per call would give each
// call the whole rate).
func TestOneClientForEveryCall(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	opts := testOptions(t, ios, "30KiB")
	opts.Rate = 2
	made := 0
	client := opts.Client
	opts.Client = func(f online.ClientFor, c int) (*api.Client, error) { made++; return client(f, c) }
	c := &clients{opts: opts}
	for range 3 {
		if _, err := c.searcher(0); err != nil {
			t.Fatal(err)
		}
	}
	if made != 1 {
		t.Fatalf("%d clients made for 3 calls, want one shared (its limiter is the server's rate)", made)
	}
}
