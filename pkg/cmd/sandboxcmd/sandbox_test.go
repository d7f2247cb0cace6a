package sandboxcmd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

func TestNewCmdFillsOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *ServeOptions
	cmd := NewCmd(&cmdutil.Factory{IO: ios}, func(_ context.Context, o *ServeOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"serve", "--addr", "127.0.0.1:9", "--token", "t", "--fault", "503", "-q"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Addr != "127.0.0.1:9" || got.EventsAddr != "127.0.0.1:0" || got.Token != "t" || got.Faults != "503" || !got.Quiet {
		t.Fatalf("options %+v", got)
	}
}

// syncBuffer is written by serve and read by the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestServeAnswersUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, &ServeOptions{IO: &iostreams.IOStreams{Out: out, ErrOut: errOut}, Addr: "127.0.0.1:0", EventsAddr: "127.0.0.1:0", Token: "tok"})
	}()
	var base string
	for deadline := time.Now().Add(5 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := regexp.MustCompile(`search:  (\S+)`).FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("no address printed: %q", out.String())
	}
	req, _ := http.NewRequest("GET", base+"/api/ti/resources/search?q=CVE-2021-44228", nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Log4Shell") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if !strings.Contains(errOut.String(), "GET /api/ti/resources/search 200") {
		t.Errorf("the request was not logged: %q", errOut.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestServeRefusesABadFault(t *testing.T) {
	err := serve(context.Background(), &ServeOptions{IO: &iostreams.IOStreams{Out: io.Discard, ErrOut: io.Discard}, Addr: "127.0.0.1:0", EventsAddr: "127.0.0.1:0", Faults: "status=abc"})
	if failure.ExitCode(err) != failure.ExitUsage {
		t.Fatalf("err %v", err)
	}
}
