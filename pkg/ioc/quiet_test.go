package ioc

import "testing"

// TestAnchorsCoverWhatTokensSay: quietToken reads nothing before the
// anchor it is asked about, so every byte that makes a token worth a look
// or starts a defang must stop the anchor scan.
func TestAnchorsCoverWhatTokensSay(t *testing.T) {
	for c := range 256 {
		if (class[c]&(cDigit|cPunct|cTrigger) != 0 || c >= 0x80) && !anchor[c] {
			t.Errorf("byte %#x says something of a token but is no anchor", c)
		}
	}
}

// checkQuiet asks quietToken at every anchor of l, with l[done:i] as long
// as it can be (from just after the anchor before), and holds its answer
// to defangAt and scanToken's, which processLine asks otherwise.
func checkQuiet(t *testing.T, l []byte) {
	t.Helper()
	e := newExtractor(nil)
	e.l = l
	done := 0
	for i := nextAnchorSWAR(l, 0); i < len(l); i = nextAnchorSWAR(l, i+1) {
		if !quietAnchor[l[i]] {
			done = i + 1
			continue
		}
		for d := done; d <= i; d++ {
			q, ok := e.quietToken(i, d)
			if !ok {
				continue
			}
			if e.defangAt(i) {
				t.Fatalf("quietToken(%d, %d) on %q: quiet, but defangAt is true", i, d, l)
			}
			_, tok, defanged, worth, _ := e.scanToken(i, d, true)
			if defanged || worth || tok != q {
				t.Fatalf("quietToken(%d, %d) on %q = %d: scanToken ends at %d, defanged %v, worth %v", i, d, l, q, tok, defanged, worth)
			}
		}
		done = i + 1
	}
}

func TestQuietToken(t *testing.T) {
	for _, l := range []string{
		"(see appendix) a well-known (at) b (dot) c ( . ) d (.) e a) (b x)(.)y foo(bar{ z(see) (a",
		"x-y\\.com (see\\ (see< (see{ appendix)} appendix)< a-b\\/c (zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
		"user (a t) example.com", "x (d o t) y", "host(a t)example(dot)com", "(see)", "(", ")", "-", "a)", "(b", "(é", "(see é", "a-", "-a", "(!#$%&*+,;=?_~ x",
		"evil(.)example (dot)com x(see)(.)y a(b) a)(b", "abcdefghijklmnopqrstuvwxyzabcd-e f",
		"far from the last anchor: appendix) xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx) xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)",
		"far from the last anchor: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-y xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-y appendix)\\/x",
	} {
		checkQuiet(t, []byte(l))
	}
	checkQuiet(t, benchText(8<<10))
}
