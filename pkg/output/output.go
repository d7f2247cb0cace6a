// Package output prints search results and the events payload in the formats
// a user can choose with -o/--output, and applies --jq.
//
// Formats, for search:
//
//   - json: the server's object exactly as received (unknown fields kept,
//     numbers never round-tripped through float64), indented on a terminal and
//     compact when piped. With several values, a JSON array written element by
//     element, never held in memory; piped, each element sits on its own line
//     between "[" and "]", which is still one valid JSON document.
//   - ndjson: one compact object per value and per line.
//   - csv: see csvColumns (unexported; its doc comment gives the columns and
//     the formula-injection rule).
//   - table: see NewSearchPrinter. All server text goes through
//     sanitize.String.
//
// Flushing: a printer owns it. Add writes a record to Out (a printer may
// hold a little back, see SearchPrinter.Flush) but never flushes Out, so a
// fast stream costs one write system call per buffer, not per record. Flush
// writes whatever the printer holds and then flushes Out when Out has a Flush
// method (a bufio.Writer); the caller calls it when the next record is not
// ready yet, so a slow stream shows each record as it comes. Close flushes
// too. PrintEvents, which prints one document, flushes when done.
//
// Piped output carries the server's bytes exactly. On a terminal (TTY), json
// and ndjson write the characters a terminal would interpret (DEL, C1
// controls, bidirectional formatting, invalid UTF-8) as \u escapes — the same
// JSON value, different bytes — and CSV cells and --jq raw strings are
// sanitized, so nothing from the server can drive the terminal in any format.
//
// A value that failed is an error record in json and ndjson, so that no input
// is lost from a stream:
//
//	{"query":"...","error":{"status":503,"kind":"server","message":"..."}}
//
// "status" is the HTTP status and is left out when the failure had none (a
// timeout, a refused connection, an input rejected locally). "kind" is the
// failure kind (failure.KindOf) and "message" the error's text. "query" is the
// value that was sent, or the input line when nothing was sent.
package output

import (
	"errors"
	"io"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output/format"
)

// Format is an output format name as given to -o/--output; the names, and
// what each supports, are the registry in pkg/output/format.
type Format = format.Name

const (
	Table  = format.Table
	JSON   = format.JSON
	NDJSON = format.NDJSON
	CSV    = format.CSV
	MD     = format.MD   // a whole-run document: pkg/export
	STIX   = format.STIX // a whole-run document: pkg/export
	MISP   = format.MISP // a whole-run document: pkg/export
)

// ParseFormat checks a format name against the registry; case and
// surrounding spaces are ignored. An unknown name is a usage error.
func ParseFormat(s string) (Format, error) {
	f, err := format.Parse(s)
	if err != nil {
		return "", failure.New(failure.Usage, "%v", err)
	}
	return f, nil
}

// CheckFormat is a usage error when command does not print f (see
// format.Check), nil when it does.
func CheckFormat(command string, f Format) error {
	if err := format.Check(command, f); err != nil {
		return failure.New(failure.Usage, "%v", err)
	}
	return nil
}

// Options say how to print. The zero Format means table.
type Options struct {
	Format Format
	Out    io.Writer
	TTY    bool // stdout is a terminal: JSON indented, tables may use colour
	Color  bool // colour already decided by the caller (--color, NO_COLOR, TTY)
	// Width is the terminal's width, which no table line exceeds; 0 when
	// stdout is not a terminal, and then nothing is cut.
	Width int
	// Hyperlinks: the terminal takes OSC 8 links, so detail_url cells link
	// to the whole URL whatever part of it shows.
	Hyperlinks bool
	Preview    bool // --preview: table mode shows each result's preview records
	JQ         string
	// Defang, when set, is applied to indicators (the query, matched_value,
	// preview values) in table and CSV output, before sanitizing; never to
	// detail_url, the service's own link, which must still open.
	Defang func(string) string
	CSVRaw bool // --csv-raw: no CSV formula-injection neutralising
}

// Record is the outcome of one query, in input order.
type Record struct {
	Input string              // the line as the user gave it
	Query string              // the value actually sent (after refang); may equal Input
	Resp  *api.SearchResponse // nil when Err != nil; Resp.Raw holds the server's exact bytes
	Err   error               // a failure: failure.KindOf gives its kind; HTTPStatus() int its status, when it has one
}

// query returns the value to show for r: what was sent, else the input line,
// else what the server says it searched.
func (r Record) query() string {
	switch {
	case r.Query != "":
		return r.Query
	case r.Input != "":
		return r.Input
	case r.Resp != nil:
		return r.Resp.Query
	}
	return ""
}

// SearchPrinter prints search records as they come.
type SearchPrinter interface {
	// Add prints one record. It is called once per input value, in input
	// order, and keeps no more than a bounded amount of state.
	Add(r Record) error
	// Flush writes whatever the printer holds back, then flushes Out when it
	// has a Flush method. Call it when the next record is not ready yet.
	Flush() error
	// Close writes whatever closes the output (the "]" of a JSON array, the
	// last rows of a table) and flushes.
	Close() error
}

// NewSearchPrinter returns the printer for opts. multi says that more than one
// value will be printed (several arguments, or a stream): JSON becomes an
// array and the table one summary row per value.
//
// Table output fits opts.Width (see resultsGrid for which columns give way
// first); a table that cannot fit prints as a record view, "key: value"
// lines per row. Single value: a block with the query, detected type,
// strategy and unsupported reason (empty ones left out), then one row per
// result (LABEL, GROUP, MATCHED COLUMN, MATCHED VALUE, COUNT, DETAIL URL), or
// "No matches."; with Preview, each result's preview records follow under a
// title, their keys in the server's order and numbers as sent. Several
// values: one row per value (QUERY, TYPE, RESOURCES, COUNT, STATUS) in
// columns fixed before the first row (see summaryPrinter). Rows, columns and
// cells are capped (maxRows, maxColumns, maxCellRunes) with a "… N more"
// note.
//
// When opts.JQ is set, the format is ignored: the expression is compiled now
// (an invalid one is a usage error) and runs on each record, see jqPrinter.
func NewSearchPrinter(opts Options, multi bool) (SearchPrinter, error) {
	if opts.Out == nil {
		return nil, errors.New("output: no writer")
	}
	if opts.JQ != "" {
		code, err := compileJQ(opts.JQ)
		if err != nil {
			return nil, err
		}
		return &jqPrinter{opts: opts, code: code}, nil
	}
	switch opts.Format {
	case JSON:
		return &jsonPrinter{opts: opts, multi: multi}, nil
	case NDJSON:
		return &ndjsonPrinter{opts: opts}, nil
	case CSV:
		return newCSVPrinter(opts), nil
	case Table, "":
		if multi {
			return newSummaryPrinter(opts), nil
		}
		return &tablePrinter{opts: opts}, nil
	}
	// A document (md, stix) is the caller's to write (pkg/export), and a
	// format added to the registry without a printer here must not print
	// nothing.
	if err := CheckFormat("search", opts.Format); err != nil {
		return nil, err
	}
	return nil, failure.New(failure.Usage, "-o %s is a document of the whole run: it has no per-record printer", opts.Format)
}

// flush pushes buffered output out, for writers that buffer (bufio.Writer),
// so that streamed output appears as it is produced.
func flush(w io.Writer) error {
	switch f := w.(type) {
	case interface{ Flush() error }:
		return f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	return nil
}

// httpStatus returns the HTTP status carried by err, or 0.
func httpStatus(err error) int {
	var hs interface{ HTTPStatus() int }
	if errors.As(err, &hs) {
		return hs.HTTPStatus()
	}
	return 0
}

func writeErr(err error) error {
	if err == nil {
		return nil
	}
	return failure.Wrap(failure.IO, err, "cannot write the output: "+err.Error())
}
