package cli

import (
	"fmt"
	"log"
	"strings"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// routeStdLog takes the standard library's logger away from stderr.
// net/http logs through it with no way to pass a logger of one's own: the
// transport ("Unsolicited response received on idle HTTP channel"), cookie
// checks ("invalid byte in Cookie.Value"). Those lines would break the
// contract of one error line on stderr, and quote server bytes raw. With
// --debug they become sanitized debug lines; otherwise they are dropped.
func routeStdLog(f *cmdutil.Factory) {
	log.SetFlags(0)
	log.SetPrefix("")
	log.SetOutput(stdLog{f})
}

type stdLog struct{ f *cmdutil.Factory }

func (l stdLog) Write(p []byte) (int, error) {
	if l.f.DebugFlag != nil && *l.f.DebugFlag {
		fmt.Fprintln(l.f.IO.ErrOut, "[debug] "+sanitize.Line(strings.TrimSpace(string(p))))
	}
	return len(p), nil
}
