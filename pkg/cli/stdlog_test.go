package cli

import (
	"log"
	"os"
	"testing"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

func TestStdLogOnlyWithDebug(t *testing.T) {
	t.Cleanup(func() { log.SetOutput(os.Stderr); log.SetFlags(log.LstdFlags) })
	ios, _, _, errOut := iostreams.Test()
	debug := false
	f := &cmdutil.Factory{IO: ios, DebugFlag: &debug}
	routeStdLog(f)

	log.Printf("Unsolicited response received on idle HTTP channel starting with %q; err=<nil>", "HTTP/1.1 200 OK\r\n\x1b[2J")
	if errOut.Len() != 0 {
		t.Fatalf("without --debug, stderr got %q", errOut)
	}
	debug = true
	log.Printf("net/http: invalid byte %q in Cookie.Value; dropping invalid bytes", '"')
	log.Print("server said \x1b]0;title\x07")
	want := "[debug] net/http: invalid byte '\"' in Cookie.Value; dropping invalid bytes\n[debug] server said ␛\n"
	if errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}
