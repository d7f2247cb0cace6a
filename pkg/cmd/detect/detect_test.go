package detect

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
)

func TestNewCmdFillsOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	ios.SetTTY(true, false, false)
	var got *Options
	cmd := NewCmd(&cmdutil.Factory{IO: ios}, func(_ context.Context, o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--no-refang", "--defang", "a.example", "b.example"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.NoRefang || !got.Defang || got.IO != ios || strings.Join(got.Values, " ") != "a.example b.example" {
		t.Errorf("options = %+v", got)
	}
}

// runDetect runs detect; tty says that stdin is a terminal.
func runDetect(t *testing.T, format output.Format, stdin string, tty bool, values ...string) (string, error) {
	t.Helper()
	return runDetectTTY(t, format, stdin, tty, false, values...)
}

func runDetectTTY(t *testing.T, format output.Format, stdin string, stdinTTY, stdoutTTY bool, values ...string) (string, error) {
	t.Helper()
	ios, in, out, _ := iostreams.Test()
	ios.SetTTY(stdinTTY, stdoutTTY, false)
	in.WriteString(stdin)
	err := run(&Options{
		IO:     ios,
		Format: func() (output.Format, error) { return format, nil },
		Values: values,
	})
	return out.String(), err
}

// On a terminal, no format lets an input drive it: JSON escapes what a
// terminal would interpret, CSV and the table sanitize, and CSV guards
// formula cells wherever the output goes.
func TestDetectTerminalAndCSVPolicy(t *testing.T) {
	const rlo, csi = "\u202e", "\xc2\x9b"
	stdin := "=cmd|' /C calc'!A0\nevil" + rlo + "gpj.exe\nx" + csi + "31mred\n"
	for _, format := range []output.Format{output.JSON, output.NDJSON, output.CSV, output.Table} {
		out, _ := runDetectTTY(t, format, stdin, false, true)
		if strings.Contains(out, rlo) || strings.Contains(out, csi) {
			t.Errorf("%s on a terminal: %q", format, out)
		}
		if format == output.CSV && !strings.Contains(out, "'=cmd") {
			t.Errorf("csv on a terminal: no formula guard: %q", out)
		}
	}
	out, _ := runDetectTTY(t, output.CSV, stdin, false, false)
	if !strings.Contains(out, "'=cmd") || strings.Contains(out, "\n=cmd") {
		t.Errorf("piped csv: no formula guard: %q", out)
	}
	if !strings.Contains(out, rlo) {
		t.Errorf("piped csv: the data is not exact: %q", out)
	}
	out, _ = runDetectTTY(t, output.JSON, stdin, false, true)
	if !strings.Contains(out, `\u202e`) {
		t.Errorf("json on a terminal: U+202E is not escaped: %q", out)
	}
}

func TestDetectReadsStdin(t *testing.T) {
	out, err := runDetect(t, output.NDJSON, "203.0.113[.]66:8080\n\n# a comment\ninvoice.pdf\n", false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"input":"203.0.113[.]66:8080","value":"203.0.113.66","type":"ipv4"}
{"input":"invoice.pdf","value":"invoice.pdf","type":"unknown"}
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// "-" is stdin too; JSON is then always an array.
	out, err = runDetect(t, output.JSON, "cve-2021-44228\n", false, "-")
	if err != nil || out != "[\n{\"input\":\"cve-2021-44228\",\"value\":\"CVE-2021-44228\",\"type\":\"cve\"}\n]\n" {
		t.Errorf("detect - = %q, %v", out, err)
	}
}

func TestDetectStdinErrorsAreRecords(t *testing.T) {
	out, err := runDetect(t, output.NDJSON, "a.example\n203.0.113.66 198.51.100.1\n", false)
	var silent *failure.Reported
	if !errors.As(err, &silent) || silent.Code != failure.ExitUsage {
		t.Errorf("err = %v, want exit 2 after the records", err)
	}
	if !strings.Contains(out, `"type":"domain"`) || !strings.Contains(out, `"error":{"kind":"input","message":"the value holds several indicators (203.0.113.66, 198.51.100.1)`) {
		t.Errorf("records:\n%s", out)
	}
}

// A refused value decides the exit code wherever it stands among valid
// ones, from stdin or from the arguments.
func TestDetectExitCodeWhateverTheOrder(t *testing.T) {
	const bad = "203.0.113.66 198.51.100.1"
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"stdin, refused first", bad + "\na.example\n", nil},
		{"stdin, refused last", "a.example\n" + bad + "\n", nil},
		{"stdin, refused in the middle", "a.example\n" + bad + "\nb.example\n", nil},
		{"arguments, refused first", "", []string{bad, "a.example"}},
		{"arguments, refused last", "", []string{"a.example", bad}},
	} {
		_, err := runDetect(t, output.NDJSON, tc.stdin, false, tc.args...)
		var silent *failure.Reported
		if !errors.As(err, &silent) || silent.Code != failure.ExitUsage {
			t.Errorf("%s: err = %v, want exit 2 after the records", tc.name, err)
		}
	}
}

func TestDetectNeedsValueOnTerminal(t *testing.T) {
	_, err := runDetect(t, output.Table, "", true)
	if failure.KindOf(err) != failure.Usage || !strings.Contains(err.Error(), "give a VALUE, or pipe values on stdin") {
		t.Errorf("err = %v", err)
	}
}

func TestDetectOneValue(t *testing.T) {
	out, err := runDetect(t, output.JSON, "", true, `"login-update.example.net/"`)
	if err != nil || out != `{"input":"\"login-update.example.net/\"","value":"login-update.example.net","type":"domain"}`+"\n" {
		t.Errorf("detect = %q, %v", out, err)
	}
	out, err = runDetect(t, output.Table, "", true, "44d88612fea8a8f36de82e1278abb02f,")
	if err != nil || !strings.Contains(out, "44d88612fea8a8f36de82e1278abb02f  md5") {
		t.Errorf("detect = %q, %v", out, err)
	}
	if _, err := runDetect(t, output.Table, "", true, "\x1b"); failure.KindOf(err) != failure.Input {
		t.Errorf("a refused value: %v, want its input error", err)
	}
}

// The table fits the terminal (issue 38): at 80 columns a long URL's rows
// do not wrap and the columns stay aligned; piped, nothing is cut.
func TestDetectTableFitsTheTerminal(t *testing.T) {
	long := "hxxps://login-update[.]example[.]net/wp-admin/css/index.php?lang=en&session=0123456789abcdef"
	stdin := long + "\n203.0.113[.]66\n"
	for _, width := range []int{0, 80, 200} {
		ios, in, out, _ := iostreams.Test()
		ios.SetTTY(false, width > 0, false)
		ios.SetTerminalWidth(width)
		in.WriteString(stdin)
		if err := run(&Options{IO: ios, Format: func() (output.Format, error) { return output.Table, nil }}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("width %d: want a header and 2 rows:\n%s", width, out)
		}
		at := strings.Index(lines[0], "TYPE")
		for _, line := range lines {
			if width > 0 && len([]rune(line)) > width {
				t.Errorf("width %d: a line of %d columns: %q", width, len([]rune(line)), line)
			}
			if r := []rune(line); len(r) <= at || r[at-1] != ' ' || r[at] == ' ' {
				t.Errorf("width %d: not aligned under TYPE at %d: %q", width, at, line)
			}
		}
		if width != 80 && !strings.Contains(out.String(), long) {
			t.Errorf("width %d: the input was cut:\n%s", width, out)
		}
	}
}
