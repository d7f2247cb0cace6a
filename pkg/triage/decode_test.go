package triage

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf16"

	"github.com/tilookup/tilookup/pkg/failure"
)

func utf16Bytes(s string, le, bom bool) []byte {
	var out []byte
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xfeff}, units...)
	}
	for _, u := range units {
		if le {
			out = append(out, byte(u), byte(u>>8))
		} else {
			out = append(out, byte(u>>8), byte(u))
		}
	}
	return out
}

func utf32Bytes(s string, le bool) []byte {
	var out []byte
	for _, r := range "\ufeff" + s {
		if le {
			out = append(out, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
		} else {
			out = append(out, byte(r>>24), byte(r>>16), byte(r>>8), byte(r))
		}
	}
	return out
}

// Reports in UTF-16 or UTF-32 with a byte order mark are read (issue 28: a
// UTF-16 report gave 0 indicators and no warning), a long one across reads
// and one byte at a time, astral characters included.
func TestDecodeText(t *testing.T) {
	text := "C2 evil.example.com, 198.51.100.7 😀 " + strings.Repeat("ünïcode 文字 ", 900) + "end.example.org\n"
	for _, c := range []struct {
		name string
		in   []byte
	}{
		{"utf-16le", utf16Bytes(text, true, true)},
		{"utf-16be", utf16Bytes(text, false, true)},
		{"utf-32le", utf32Bytes(text, true)},
		{"utf-32be", utf32Bytes(text, false)},
		{"utf-8 bom", append([]byte("\ufeff"), text...)},
		{"utf-8", []byte(text)},
	} {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(string(c.in))
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			var warned []string
			got, err := io.ReadAll(decodeText(r, func(m string) { warned = append(warned, m) }))
			if err != nil || string(got) != text || len(warned) > 0 {
				t.Errorf("%s (one byte %v): err %v, warned %v, equal %v", c.name, oneByte, err, warned, string(got) == text)
			}
		}
	}
}

func TestDecodeTextRefusesBinary(t *testing.T) {
	for _, c := range []struct {
		name, in, msg string
	}{
		{"elf", "\x7fELF\x02\x01\x01\x00\x00\x00note.gnu.property", "a binary file, not text"},
		{"utf-16 without a mark", string(utf16Bytes("C2 evil.example.com and more text here", true, false)), "UTF-16LE text without a byte order mark"},
		{"utf-16be without a mark", string(utf16Bytes("C2 evil.example.com and more text here", false, false)), "UTF-16BE text without a byte order mark"},
	} {
		_, err := io.ReadAll(decodeText(strings.NewReader(c.in), nil))
		if !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want ErrBinary saying %q", c.name, err, c.msg)
		}
	}
	// Named by OpenLazy: the one line a command prints, a failed read's kind.
	_, err := io.ReadAll(OpenLazy(strings.NewReader("a\x00b"), "/bin/ls", Auto, nil))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Name != "/bin/ls" {
		t.Errorf("OpenLazy: %v", err)
	}
	if want := "cannot read /bin/ls: " + ErrBinary.Error(); err == nil || err.Error() != want || failure.KindOf(err) != failure.IO {
		t.Errorf("OpenLazy: %v (%s), want %q (%s)", err, failure.KindOf(err), want, failure.IO)
	}
}

func TestDecodeTextWarnsUnreadEncoding(t *testing.T) {
	var warned []string
	got, _ := io.ReadAll(OpenLazy(strings.NewReader("+/v8 evil.example.com"), "-", Auto, func(m string) { warned = append(warned, m) }))
	if len(warned) != 1 || !strings.Contains(warned[0], "stdin: the input is in UTF-7, which is not read") {
		t.Errorf("warned %q", warned)
	}
	if string(got) != "+/v8 evil.example.com" {
		t.Errorf("read %q", got)
	}
}

func FuzzDecodeText(f *testing.F) {
	f.Add(utf16Bytes("evil.example.com 😀", true, true))
	f.Add(utf16Bytes("evil.example.com", false, true))
	f.Add(utf32Bytes("198.51.100.7", true))
	f.Add([]byte("\xff\xfe\x00\xd8a"))    // a lone high surrogate
	f.Add([]byte("\xff\xfe\x00\x00\xff")) // a partial UTF-32 unit
	f.Add([]byte("ev\x00il.example"))
	// issue 38: a log with a stray NUL and colours is text
	f.Add([]byte("\x1b[31mC2\x1b[0m ev\x00il.example 198.51.100.7\r\n" + strings.Repeat("words of a log ", 10)))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := io.ReadAll(decodeText(strings.NewReader(string(in)), nil))
		if err != nil && !errors.Is(err, ErrBinary) {
			t.Fatalf("%q: %v", in, err)
		}
		if err == nil && len(in) >= 2 && (in[0] == 0xff && in[1] == 0xfe || in[0] == 0xfe && in[1] == 0xff) && !utf8Valid(got) {
			t.Fatalf("%q decoded to invalid UTF-8 %q", in, got)
		}
	})
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\x00") == string(b) }

// TestOpenStreams is `tail -f new.log | tilookup extract`: the first short
// line of a pipe is read as soon as it is written, whatever its encoding,
// not when 8 KiB have come or the writer closes. A mark that comes apart
// across writes is still read whole. (HTML is left out: its text is
// whole only at the next tag.) The deadline is generous (the
// machine may be busy); nothing sleeps.
func TestOpenStreams(t *testing.T) {
	line := "C2 evil.example.com\n"
	for _, c := range []struct {
		name   string
		writes [][]byte
	}{
		{"utf-8", [][]byte{[]byte(line)}},
		{"utf-8 bom", [][]byte{append([]byte("\ufeff"), line...)}},
		{"utf-16le", [][]byte{utf16Bytes(line, true, true)}},
		{"utf-16be, mark in two writes", [][]byte{{0xfe}, utf16Bytes(line, false, true)[1:]}},
	} {
		pr, pw := io.Pipe()
		go func() {
			for _, w := range c.writes {
				if _, err := pw.Write(w); err != nil {
					return
				}
			}
		}()
		got := make(chan string, 1)
		go func() {
			buf := make([]byte, 512)
			r := Open(pr, "-", Auto, nil)
			var read []byte
			for !strings.Contains(string(read), "evil.example.com") {
				n, err := r.Read(buf)
				read = append(read, buf[:n]...)
				if err != nil {
					break
				}
			}
			got <- string(read)
		}()
		select {
		case s := <-got:
			if !strings.Contains(s, "C2 evil.example.com") {
				t.Errorf("%s: read %q", c.name, s)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: nothing read while the writer waits", c.name)
		}
		pw.Close()
	}
}
