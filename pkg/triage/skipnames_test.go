package triage

import (
	"slices"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/ioc"
)

// contractNoiseNames are the special-use and private-use names that the
// contract (interface.md, "Input handling", Noise) lists: never sent.
var contractNoiseNames = []string{"local", "localhost", "internal", "home.arpa", "alt", "lan", "corp", "home", "mail"}

// contractLookedUp are the documentation names the contract says are
// looked up all the same.
var contractLookedUp = []string{"example", "test", "invalid"}

// namesUnder are the forms of an indicator at a name under suffix: the
// name, its parents, in capitals, with a root dot, as an e-mail address,
// and as URLs bare or with a path.
func namesUnder(suffix string) []string {
	return []string{
		"dc01.acme." + suffix,
		"acme." + suffix,
		strings.ToUpper("FileServer.Acme." + suffix),
		"printer.acme." + suffix + ".",
		"it-support@acme." + suffix,
		"https://intranet.acme." + suffix,
		"http://wiki.acme." + suffix + ":8080/login?next=/admin",
	}
}

func TestNoiseNames(t *testing.T) {
	s := &Skipper{Noise: true}
	for _, suffix := range contractNoiseNames {
		for _, v := range namesUnder(suffix) {
			got := s.Reason(v, ioc.Detect(v))
			if !strings.Contains(got, "name (") || !strings.Contains(got, suffix) {
				t.Errorf("%s: reason %q, want the special-use or private-use name %s", v, got, suffix)
			}
			if r := (&Skipper{}).Reason(v, ioc.Detect(v)); r != "" {
				t.Errorf("%s with the noise rules off (--no-skip): %q", v, r)
			}
		}
	}
	for _, suffix := range contractLookedUp {
		for _, v := range namesUnder(suffix) {
			if got := s.Reason(v, ioc.Detect(v)); got != "" {
				t.Errorf("%s: skipped (%q), but documentation names are looked up", v, got)
			}
		}
	}
}

// A noise name is a whole label: a name that merely contains one, or has
// one as a label further left, is a real name.
func TestNoiseNamesAreWholeSuffixes(t *testing.T) {
	s := &Skipper{Noise: true}
	for _, suffix := range contractNoiseNames {
		for _, v := range []string{
			suffix + ".example.com",                             // corp.example.com, mail.example.com
			"x." + suffix + ".ru",                               // mail.ru is a real mail host
			"my" + strings.ReplaceAll(suffix, ".", "") + ".com", // mylocal.com, myhomearpa.com
			"https://" + suffix + ".example.net/",
			"noc@" + suffix + ".example.org",
		} {
			if got := s.Reason(v, ioc.Detect(v)); got != "" {
				t.Errorf("%s: skipped (%q)", v, got)
			}
		}
	}
	for _, v := range []string{"arpa", "in-addr.arpa", "example.home.arpa.net"} {
		if got := s.Reason(v, ioc.Detect(v)); got != "" {
			t.Errorf("%s: skipped (%q)", v, got)
		}
	}
}

// The policy's table is the contract's list, no more and no less.
func TestNoiseNamesTableIsTheContracts(t *testing.T) {
	var got []string
	for _, n := range noiseNames {
		got = append(got, n.suffix)
	}
	want := append([]string(nil), contractNoiseNames...)
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("noise names %v, the contract lists %v", got, want)
	}
}
