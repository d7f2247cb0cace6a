package search

import (
	"context"
	"fmt"
	"time"

	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/report"
)

// collector is the Sink of a document: it counts each result as sink
// does and keeps it in the report.
type collector struct {
	sink
	doc *report.Report
}

func (c *collector) Add(r lookup.Result) error {
	c.count(r)
	if !c.multi && r.Err != nil {
		return r.Err
	}
	in := report.Indicator{Value: r.Item.Value, Type: string(r.Item.Type), Resp: report.Lean(r.Resp), Err: r.Err}
	if r.Item.Value == "" {
		// Refused before any request: the line as given, of no type.
		in.Value, in.Type = r.Item.Input, ""
	}
	c.doc.Indicators = append(c.doc.Indicators, in)
	return nil
}

func (c *collector) Flush() error { return nil }

// runDocument looks every value up, then writes the document. An
// interrupted run still writes what it has: the complete prefix.
// bar is the progress bar, or nil.
func runDocument(ctx context.Context, opts *Options, format output.Format, src lookup.Source, service *online.Service, multi bool, bar *progress, total func() int) error {
	c := &collector{sink: sink{io: opts.IO, multi: multi, bar: bar, skipped: opts.Skip, total: total}, doc: &report.Report{Time: time.Now().UTC()}}
	runErr := service.Run(ctx, src, c)
	c.bar.finish()
	if !multi && runErr != nil {
		return runErr
	}
	c.doc.Title = documentTitle(c.doc, multi)
	c.doc.Interrupted = failure.KindOf(runErr) == failure.Interrupted
	// Markdown goes into tickets: defanged unless asked otherwise.
	o := export.Options{TLP: opts.TLP, ToIDS: opts.ToIDS, Defang: opts.Defang || !opts.DefangSet}
	if err := export.WriteDocument(opts.IO.Out, opts.IO.IsStdoutTTY(), format, export.Records(c.doc), o); err != nil {
		return failure.WriteError(err)
	}
	if !multi {
		return c.tally.Err(nil, opts.ExitStatus)
	}
	return c.finish(runErr, opts.ExitStatus)
}

// documentTitle is the value searched, or how many there were.
func documentTitle(r *report.Report, multi bool) string {
	switch n := len(r.Indicators); {
	case !multi && n == 1:
		return r.Indicators[0].Value
	case n == 1:
		return "Search of 1 value"
	default:
		return fmt.Sprintf("Search of %d values", n)
	}
}
