package extract

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
)

func TestNewCmdFillsOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *Options
	cmd := NewCmd(&cmdutil.Factory{IO: ios}, func(_ context.Context, o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--types", "ip,hash", "--defang", "a.txt", "-"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Types != "ip,hash" || !got.Defang || got.IO != ios || strings.Join(got.Files, " ") != "a.txt -" {
		t.Errorf("options = %+v", got)
	}
}

// runExtract runs extract on stdin; a stdin of "tty" is a terminal.
func runExtract(t *testing.T, stdin string, opts Options) (string, error) {
	t.Helper()
	ios, in, out, _ := iostreams.Test()
	if stdin == "tty" {
		ios.SetTTY(true, false, false)
	} else {
		in.WriteString(stdin)
	}
	opts.IO = ios
	if opts.Format == nil {
		opts.Format = func() (output.Format, error) { return output.Table, nil }
	}
	err := run(&opts)
	return out.String(), err
}

const report = `Beacon to hxxps://evil[.]example[.]com/gate.php and "203.0.113[.]66:8080",
dropper invoice.pdf, hash 44D88612FEA8A8F36DE82E1278ABB02F.`

func TestExtractStdinAndFiles(t *testing.T) {
	out, err := runExtract(t, report, Options{})
	want := "https://evil.example.com/gate.php\n203.0.113.66\n44d88612fea8a8f36de82e1278abb02f\n"
	if err != nil || out != want {
		t.Errorf("stdin: %q, %v; want %q", out, err, want)
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "r.txt")
	if err := os.WriteFile(name, []byte("login-update.example.net/"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = runExtract(t, report, Options{Files: []string{name, "-"}, Types: "domain,ip", Defang: true})
	if err != nil || out != "login-update[.]example[.]net\n203[.]0[.]113[.]66\n" {
		t.Errorf("file and stdin: %q, %v", out, err)
	}
	out, err = runExtract(t, report, Options{Format: func() (output.Format, error) { return output.NDJSON, nil }, Types: "hash"})
	if err != nil || out != `{"value":"44d88612fea8a8f36de82e1278abb02f","type":"md5"}`+"\n" {
		t.Errorf("ndjson: %q, %v", out, err)
	}
}

func TestExtractErrors(t *testing.T) {
	tests := []struct {
		stdin string
		opts  Options
		kind  failure.Kind
		msg   string
	}{
		{"tty", Options{}, failure.Usage, "give a FILE, or pipe text on stdin"},
		{"", Options{Types: "bogus"}, failure.Usage, `unknown indicator type "bogus"`},
		{"", Options{Files: []string{filepath.Join(t.TempDir(), "missing.txt")}}, failure.IO, "cannot read"},
		{"", Options{Files: []string{t.TempDir()}}, failure.IO, "is a directory"},
	}
	for _, tt := range tests {
		_, err := runExtract(t, tt.stdin, tt.opts)
		if failure.KindOf(err) != tt.kind || err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%+v: %v, want %s error with %q", tt.opts, err, tt.kind, tt.msg)
		}
	}
}
