package triage

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/ioc"
)

// scanned is what Scan yields, one "value type from_url skip" line each.
func scanned(t *testing.T, text string, opts ScanOptions) []string {
	t.Helper()
	var got []string
	err := Scan(strings.NewReader(text), opts, func(f Found) error {
		got = append(got, fmt.Sprintf("%s %s %s %s", f.Value, f.Type, f.FromURL, f.Skip))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestScan(t *testing.T) {
	const text = "C2 hxxp://10.0.0.5/gate and https://evil.example/x.php, then evil.example, 203.0.113.0/24 and 8.8.8.8\n"
	got := strings.Join(scanned(t, text, ScanOptions{Skip: &Skipper{Noise: true}}), "\n")
	want := strings.Join([]string{
		"http://10.0.0.5/gate url  private address",
		"10.0.0.5 ipv4 http://10.0.0.5/gate private address",
		"https://evil.example/x.php url  ",
		"evil.example domain https://evil.example/x.php ",
		"203.0.113.0/24 cidr  " + CIDRReason,
		"8.8.8.8 ipv4  ",
	}, "\n")
	if got != want {
		t.Errorf("triage's scan:\n%s\nwant\n%s", got, want)
	}

	// --no-skip: address blocks are still never sent.
	got = strings.Join(scanned(t, text, ScanOptions{}), "\n")
	if !strings.Contains(got, "10.0.0.5 ipv4 http://10.0.0.5/gate \n") || !strings.Contains(got, "/24 cidr  "+CIDRReason) {
		t.Errorf("no skip rules:\n%s", got)
	}

	// extract's reading: the text's own values, of the types asked for.
	got = strings.Join(scanned(t, text, ScanOptions{TextOnly: true, Types: []ioc.Type{ioc.Domain, ioc.IPv4}}), "\n")
	if want := "evil.example domain  \n8.8.8.8 ipv4  "; got != want {
		t.Errorf("text only, domains and IPv4:\n%s\nwant\n%s", got, want)
	}
}

func TestScanStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Scan(strings.NewReader("a.example b.example c.example"), ScanOptions{}, func(Found) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("yield's error: %v after %d values, want it at once", err, n)
	}
}

// openScanned is what Scan yields of a report read as Open reads it.
func openScanned(t *testing.T, report, name string) []string {
	t.Helper()
	var got []string
	err := Scan(Open(strings.NewReader(report), name, Auto, nil), ScanOptions{TextOnly: true}, func(f Found) error {
		got = append(got, f.Value)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return got
}

// A NUL inside a word of a page's text is dropped as a browser drops it
// (issue 39 #1): the page shows evil-nul.example, and that is what is
// looked up, whether the page is named .html or sniffed; a saved text
// report with a NUL or a terminal's colours in it reads as its clean text
// (issue 38 #2), and neither is taken for a binary file.
func TestScanNUL(t *testing.T) {
	page := "<!DOCTYPE html>\n<html><body><p>C2 evil-\x00nul.example and 198.51.\x00100.7</p>\n" +
		"<p>" + strings.Repeat("Lorem ipsum dolor sit amet. ", 40) + "</p></body></html>\n"
	for _, name := range []string{"report.html", "-"} {
		if got := strings.Join(openScanned(t, page, name), " "); got != "evil-nul.example 198.51.100.7" {
			t.Errorf("%s: %q, want the values a browser shows", name, got)
		}
	}
	clean := "C2 evil.example and 198.51.100.7\r\nthen " + strings.Repeat("more words of the log ", 20) + "hxxps://b[.]example/x\n"
	dirty := "\x1b[1;31mC2\x1b[0m ev\x00il.example and 198.51.100.7\r\nthen \x1b[32m" + strings.Repeat("more words of the log ", 20) + "hxxps://b[.]example/x\x1b[0m\n"
	want := strings.Join(openScanned(t, clean, "log.txt"), " ")
	if got := strings.Join(openScanned(t, dirty, "log.txt"), " "); got != want || want == "" {
		t.Errorf("a terminal log: %q, want %q", got, want)
	}
}

// A schemeless URL and the same URL with its scheme are looked up once,
// with the scheme the text gave; whichever comes first, the schemeless one
// is listed as skipped, the same as its twin. A schemeless URL with no
// twin is looked up as it is: no scheme is invented.
func TestScanSchemelessTwin(t *testing.T) {
	for _, text := range []string{
		"paste pastebin.com/raw/w6BVFFWQ, then https://pastebin.com/raw/w6BVFFWQ and evil.example/x\n",
		"paste https://pastebin.com/raw/w6BVFFWQ, then pastebin.com/raw/w6BVFFWQ and evil.example/x\n",
	} {
		looked, skipped := map[string]bool{}, map[string]string{}
		err := Scan(strings.NewReader(text), ScanOptions{Skip: &Skipper{Noise: true}}, func(f Found) error {
			if f.Skip != "" {
				skipped[f.Value] = f.Skip
			} else {
				looked[f.Value] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !looked["https://pastebin.com/raw/w6BVFFWQ"] || looked["pastebin.com/raw/w6BVFFWQ"] || !looked["evil.example/x"] {
			t.Errorf("%q: looked up %v", text, looked)
		}
		if got := skipped["pastebin.com/raw/w6BVFFWQ"]; got != sameURLWithScheme {
			t.Errorf("%q: schemeless twin %q", text, got)
		}
	}
}

// A stream (extract --skip-noise, TextOnly) holds nothing back: a
// schemeless URL after the same URL with its scheme is skipped as its
// twin, as triage skips it; one before it is out already and stays.
func TestScanTextOnlyTwinComesFirst(t *testing.T) {
	const text = "see https://pastebin.com/raw/a, then pastebin.com/raw/a; and pastebin.com/raw/b before https://pastebin.com/raw/b\n"
	var got []string
	err := Scan(strings.NewReader(text), ScanOptions{Skip: &Skipper{Noise: true}, TextOnly: true}, func(f Found) error {
		got = append(got, f.Value+" "+f.Skip)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"https://pastebin.com/raw/a ",
		"pastebin.com/raw/a " + sameURLWithScheme,
		"pastebin.com/raw/b ",
		"https://pastebin.com/raw/b ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
