package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/triage"
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
	err := run(context.Background(), &opts)
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

const noisy = `From it-desk@mail.acme.local: dc01.acme.local (10.0.0.12, 10.0.0.13) to
hxxps://evil[.]example[.]com/gate.php and 198.51.100[.]7, not 203.0.113.0/24.`

// --skip-noise: stdout is the kept values only; a person at a terminal is
// told on stderr what was left out, by reason; a script is told nothing.
func TestExtractSkipNoise(t *testing.T) {
	const kept = "https://evil.example.com/gate.php\n198.51.100.7\n"
	for _, tty := range []bool{false, true} {
		ios, in, out, errOut := iostreams.Test()
		ios.SetTTY(false, false, tty)
		in.WriteString(noisy)
		opts := &Options{IO: ios, SkipNoise: true,
			Format:  func() (output.Format, error) { return output.Table, nil },
			Setting: func(string) (string, error) { return "", nil }}
		if err := run(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		if out.String() != kept {
			t.Errorf("stderr a terminal %v: stdout %q, want %q", tty, out.String(), kept)
		}
		want := ""
		if tty {
			want = "tilookup: --skip-noise left out, by reason (5 in all):\n" +
				"     2  special-use name (.local, mDNS, RFC 6762)\n" +
				"     2  private address\n" +
				"     1  " + triage.CIDRReason + "\n"
		}
		if errOut.String() != want {
			t.Errorf("stderr a terminal %v: stderr %q, want %q", tty, errOut.String(), want)
		}
	}
}

func TestExtractSkipNoiseFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	cmd := NewCmd(&cmdutil.Factory{IO: ios}, func(context.Context, *Options) error { return nil })
	cmd.SetArgs([]string{"--warninglists", "lists", "a.txt"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); failure.KindOf(err) != failure.Usage || !strings.Contains(fmt.Sprint(err), "--warninglists goes with --skip-noise") {
		t.Errorf("--warninglists without --skip-noise: %v", err)
	}
}

// A large file is mapped into memory (triage.OpenInputs): extract prints
// what it prints of the same text on stdin, with --skip-noise too.
func TestExtractLargeFileAsStdin(t *testing.T) {
	var text strings.Builder
	for i := 0; text.Len() < 3<<20; i++ {
		fmt.Fprintf(&text, "beacon %d to hxxps://c2-%d[.]evil[.]example/gate.php from 10.%d.%d.%d, see localhost and 8.8.8.8\n", i, i%5000, i>>16&255, i>>8&255, i&255)
	}
	text.WriteString("and a last line without its end: 192.0.2.77")
	name := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(name, []byte(text.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	noSetting := func(string) (string, error) { return "", nil }
	for _, opts := range []Options{{}, {SkipNoise: true, Setting: noSetting}} {
		want, err := runExtract(t, text.String(), opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Files = []string{name}
		got, err := runExtract(t, "", opts)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("skip noise %v: the file gives %d bytes, stdin %d, not the same", opts.SkipNoise, len(got), len(want))
		}
		if !strings.HasSuffix(got, "192.0.2.77\n") {
			t.Errorf("skip noise %v: the last line's value is missing: ...%q", opts.SkipNoise, got[max(0, len(got)-60):])
		}
	}
}
