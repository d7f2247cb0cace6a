package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"sync"
)

// pending counts the requests read from stdin and the answers written to
// stdout, so that the end of stdin waits for the answers still owed:
// `tilookup mcp < requests.jsonl` answers every request, as a script
// expects, instead of dropping the calls in flight when input ends.
type pending struct {
	mu       sync.Mutex
	changed  *sync.Cond
	asked    int
	answered int
}

func newPending() *pending {
	p := &pending{}
	p.changed = sync.NewCond(&p.mu)
	return p
}

func (p *pending) add(asked, answered int) {
	if asked == 0 && answered == 0 {
		return
	}
	p.mu.Lock()
	p.asked += asked
	p.answered += answered
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
	for p.answered < p.asked && ctx.Err() == nil {
		p.changed.Wait()
	}
}

// message is what counting needs of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// count reads one line: how many requests (an id and a method) and how
// many answers (an id, no method) it holds. A cancelled request gets no
// answer, so its notice counts as one. A line that is not JSON counts as
// nothing: the SDK answers it with a parse error of its own.
func count(line []byte) (requests, answers int) {
	line = bytes.TrimSpace(line)
	var msgs []message
	if len(line) > 0 && line[0] == '[' {
		_ = json.Unmarshal(line, &msgs)
	} else {
		var m message
		if json.Unmarshal(line, &m) == nil {
			msgs = []message{m}
		}
	}
	for _, m := range msgs {
		switch {
		case m.Method == "notifications/cancelled":
			answers++
		case len(m.ID) == 0 || string(m.ID) == "null":
		case m.Method != "":
			requests++
		default:
			answers++
		}
	}
	return requests, answers
}

// countingReader passes stdin through line by line, counting requests;
// at the end of input it waits for their answers before reporting EOF.
type countingReader struct {
	ctx  context.Context
	p    *pending
	r    *bufio.Reader
	line []byte
}

func (c *countingReader) Read(b []byte) (int, error) {
	if len(c.line) == 0 {
		line, err := c.r.ReadBytes('\n')
		if len(line) == 0 {
			if err == io.EOF {
				c.p.wait(c.ctx)
			}
			return 0, err
		}
		asked, _ := count(line)
		c.p.add(asked, 0)
		c.line = line
	}
	n := copy(b, c.line)
	c.line = c.line[n:]
	return n, nil
}

func (c *countingReader) Close() error { return nil }

// countingWriter passes stdout through, counting the answers in each
// complete line. Once stdout fails no answer can arrive, so nothing is
// owed any more.
type countingWriter struct {
	p       *pending
	w       io.Writer
	mu      sync.Mutex
	partial []byte
}

func (c *countingWriter) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.w.Write(b)
	if err != nil {
		c.p.add(0, math.MaxInt32)
	}
	c.partial = append(c.partial, b[:n]...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			break
		}
		_, answered := count(c.partial[:i])
		c.p.add(0, answered)
		c.partial = c.partial[i+1:]
	}
	return n, err
}

func (c *countingWriter) Close() error { return nil }
