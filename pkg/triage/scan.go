package triage

import (
	"io"

	"github.com/tilookup/tilookup/pkg/ioc"
)

// Found is one indicator of a report as triage judges it.
type Found struct {
	ioc.Indicator
	// Skip says why the value is not looked up (Skipper.Reason), "" when
	// it is.
	Skip string
	// Warninglists names the CIDR warning lists whose ranges hold a
	// value that is looked up (Verdict.Warninglists).
	Warninglists []string
}

// ScanOptions say what Scan reports. The zero value is triage's reading
// with nothing skipped but address blocks (--no-skip).
type ScanOptions struct {
	Skip  *Skipper   // the skip rules; nil skips address blocks only
	Types []ioc.Type // only these types (extract --types); nil: all
	// TextOnly leaves out the hosts of URLs: extract lists what the text
	// holds, where triage also looks up each URL's host. And it holds
	// nothing back, for a stream (tail -f): a schemeless URL is skipped as
	// its twin's only when the same URL with its scheme came before it.
	TextOnly bool
	// Done stops the scan, as ioc.ExtractOptions.Done.
	Done <-chan struct{}
}

// Scan is the one reading of a report for triage and what shares its
// rules (the MCP server's triage tool, extract): every indicator of text
// (as Open or OpenLazy read it), and after each new URL its host, marked
// with FromURL, each judged by the skip rules, handed to yield in order
// of first appearance. An error from yield stops the scan and is
// returned.
func Scan(text io.Reader, opts ScanOptions, yield func(Found) error) error {
	// Each URL's host is looked up too: "is this host known?" is the
	// question an analyst asks of a C2 URL, and an exact-URL search does
	// not ask it.
	eo := ioc.ExtractOptions{Types: opts.Types, URLHosts: !opts.TextOnly, Done: opts.Done}
	judged := func(ind ioc.Indicator) Found {
		v := opts.Skip.Judge(ind.Value, ind.Type)
		return Found{Indicator: ind, Skip: v.Skip, Warninglists: v.Warninglists}
	}
	if opts.TextOnly {
		var tw twins
		return ioc.Extract(text, eo, func(ind ioc.Indicator) error {
			f := judged(ind)
			tw.earlier(&f)
			return yield(f)
		})
	}
	// A schemeless URL and the same URL with its scheme are one lookup
	// (twins; pkg/ioc/RULES.md).
	tw := &twins{yield: yield}
	if err := ioc.Extract(text, eo, func(ind ioc.Indicator) error { return tw.add(judged(ind)) }); err != nil {
		return err
	}
	return tw.flush()
}
