package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxFrame is the largest message read from stdin: the SDK's own cap. A
// longer line is read through and dropped, never held whole (issue 28: a
// 1 GiB line cost 2.1 GB).
const maxFrame = sdk.DefaultMaxLineLength

// serveIO runs s on newline-delimited JSON-RPC from in to out, with the
// checks of stdin and the wait for the answers owed at its end.
func serveIO(ctx context.Context, s *sdk.Server, in io.Reader, out io.Writer) error {
	p := newPending()
	w := &stdout{p: p, w: out}
	return s.Run(ctx, &sdk.IOTransport{Reader: newStdin(ctx, in, p, w), Writer: w})
}

// pending tracks the requests read from stdin whose answers are still
// owed, by id, so that the end of stdin waits for them: `tilookup mcp <
// requests.jsonl` answers every request, as a script expects, instead of
// dropping the calls in flight when input ends. Ids, not counts: a
// request whose id is already in flight is refused here (the SDK would
// answer only one of the two, and a count would then wait for ever).
type pending struct {
	mu      sync.Mutex
	changed *sync.Cond
	owed    map[string]bool
	broken  bool // stdout failed: no answer can arrive
}

func newPending() *pending {
	p := &pending{owed: map[string]bool{}}
	p.changed = sync.NewCond(&p.mu)
	return p
}

// ask records a request; false when its id is already in flight.
func (p *pending) ask(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.owed[id] {
		return false
	}
	p.owed[id] = true
	return true
}

// done records the answer to id (or its cancellation, which has none).
func (p *pending) done(id string) {
	p.mu.Lock()
	delete(p.owed, id)
	p.mu.Unlock()
	p.changed.Broadcast()
}

func (p *pending) fail() {
	p.mu.Lock()
	p.broken = true
	p.mu.Unlock()
	p.changed.Broadcast()
}

// wait returns when every request read has its answer, or ctx ends.
func (p *pending) wait(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.changed.Broadcast()
	})
	defer stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.owed) > 0 && !p.broken && ctx.Err() == nil {
		p.changed.Wait()
	}
}

// message is what tracking needs of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// idKey is an id as a map key: its JSON, compacted ("1" and 1 differ, as
// in JSON-RPC); "" for none or null.
func idKey(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil || b.String() == "null" {
		return ""
	}
	return b.String()
}

// parse reads what tracking needs of one line's message.
func parse(line []byte) (message, error) {
	var m message
	err := json.Unmarshal(bytes.TrimSpace(line), &m)
	return m, err
}

// stdin hands the SDK one checked message at a time. A line that is not
// JSON gets a parse error (-32700), one that is not a JSON-RPC message an
// invalid-request error (-32600), a line beyond the frame cap, a batch
// or a request whose id is in flight the same; the session goes on. The
// SDK itself ends the session on any of these, losing the calls in
// flight.
type stdin struct {
	ctx  context.Context
	p    *pending
	r    *bufio.Reader
	out  *stdout
	line []byte // what is left of the current message
}

func newStdin(ctx context.Context, r io.Reader, p *pending, out *stdout) *stdin {
	return &stdin{ctx: ctx, p: p, r: bufio.NewReaderSize(r, 64<<10), out: out}
}

func (s *stdin) Read(b []byte) (int, error) {
	for len(s.line) == 0 {
		line, tooLong, err := s.frame()
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			s.line = s.check(line, tooLong)
		}
		if err != nil && len(s.line) == 0 {
			if err == io.EOF {
				s.p.wait(s.ctx)
			}
			return 0, err
		}
	}
	n := copy(b, s.line)
	s.line = s.line[n:]
	return n, nil
}

// frame reads one line of at most maxFrame bytes; a longer one is read
// to its end and dropped (tooLong).
func (s *stdin) frame() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := s.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxFrame {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
}

// check returns the line to hand the SDK, or nil when the line was
// answered here.
func (s *stdin) check(line []byte, tooLong bool) []byte {
	if tooLong {
		s.out.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d bytes, ignored", maxFrame))
		return nil
	}
	if trimmed := bytes.TrimSpace(line); trimmed[0] == '[' && json.Valid(trimmed) {
		// The SDK refuses batches by ending the session (JSON-RPC batching
		// was dropped from MCP in 2025-06-18): one error for the whole
		// line, as JSON-RPC answers an empty batch.
		s.out.reply(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message a line")
		return nil
	}
	m, err := parse(line)
	if err != nil {
		if !json.Valid(bytes.TrimSpace(line)) {
			s.out.reply(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
		} else {
			s.out.reply(nil, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC message")
		}
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line)); err != nil {
		s.out.reply(m.ID, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	switch id := idKey(m.ID); {
	case m.Method == "notifications/cancelled":
		// A cancelled request gets no answer.
		s.p.done(idKey(m.Params.RequestID))
	case id == "" || m.Method == "":
		// A notification, or the client's answer to the server.
	case !s.p.ask(id):
		s.out.reply(m.ID, jsonrpc.CodeInvalidRequest, "invalid request: a request with id "+id+" is still in flight")
		return nil
	}
	if !bytes.HasSuffix(line, []byte("\n")) {
		line = append(line, '\n')
	}
	return line
}

func (s *stdin) Close() error { return nil }

// stdout passes the SDK's messages through, noting the answers in each
// complete line; reply writes the answers of stdin's own errors between
// them. The SDK writes one whole message per Write.
type stdout struct {
	p       *pending
	w       io.Writer
	mu      sync.Mutex
	partial []byte
}

func (s *stdout) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.w.Write(b)
	if err != nil {
		s.p.fail()
	}
	s.partial = append(s.partial, b[:n]...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		if m, err := parse(s.partial[:i]); err == nil && m.Method == "" {
			s.p.done(idKey(m.ID))
		}
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) == 0 {
		s.partial = nil // not keep the largest answer's array
	}
	return n, err
}

// reply writes a JSON-RPC error answer to id (nil: null) on its own line.
func (s *stdout) reply(id json.RawMessage, code int64, msg string) {
	if idKey(id) == "" {
		id = json.RawMessage("null")
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	fmt.Fprintf(&b, `,"error":{"code":%d,"message":`, code)
	m, _ := json.Marshal(msg)
	b.Write(m)
	b.WriteString("}}\n")
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(b.Bytes()); err != nil {
		s.p.fail()
	}
}

func (s *stdout) Close() error { return nil }
