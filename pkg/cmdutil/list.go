package cmdutil

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// ListWriter streams simple records (detect, extract and config list
// results) in any output format: a JSON array written element by element,
// NDJSON lines, CSV with a header, or an aligned table. Only the table
// buffers, and only when it has several columns; a one-column table is one
// value per line. JSON goes through output.WriteJSON and CSV through
// output.CSVWriter, so a terminal gets the same escaping and CSV cells the
// same formula guard as search's.
type ListWriter struct {
	o       output.Options
	columns []string
	n       int
	csv     *output.CSVWriter
	tw      *tabwriter.Writer
	buf     []byte
}

// NewListWriter starts a list in o.Format on o.Out (o.TTY and o.CSVRaw
// apply) with the given table/CSV column names.
func NewListWriter(o output.Options, columns []string) *ListWriter {
	return &ListWriter{o: o, columns: columns}
}

// Write adds one record: obj for JSON formats, cells for table and CSV.
func (l *ListWriter) Write(obj any, cells []string) error {
	defer func() { l.n++ }()
	switch l.o.Format {
	case output.JSON, output.NDJSON:
		b, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		l.buf = l.buf[:0]
		if l.o.Format == output.JSON {
			if l.n == 0 {
				l.buf = append(l.buf, "[\n"...)
			} else {
				l.buf = append(l.buf, ",\n"...)
			}
			l.buf = append(l.buf, b...)
		} else {
			l.buf = append(append(l.buf, b...), '\n')
		}
		return output.WriteJSON(l.o, l.buf)
	case output.CSV:
		if l.csv == nil {
			l.csv = output.NewCSVWriter(l.o, l.columns)
		}
		if err := l.csv.Write(cells); err != nil {
			return err
		}
		return l.csv.Flush()
	default:
		if len(cells) == 1 {
			// One Write of the line built in buf: fmt's formatting was
			// most of what a value of extract's output cost.
			l.buf = append(append(l.buf[:0], sanitize.String(cells[0])...), '\n')
			_, err := l.o.Out.Write(l.buf)
			return failure.WriteError(err)
		}
		if l.tw == nil {
			l.tw = tabwriter.NewWriter(l.o.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(l.tw, strings.ToUpper(strings.Join(l.columns, "\t")))
		}
		safe := make([]string, len(cells))
		for i, c := range cells {
			safe[i] = sanitize.String(c)
		}
		_, err := fmt.Fprintln(l.tw, strings.Join(safe, "\t"))
		return failure.WriteError(err)
	}
}

// Close ends the list: the JSON array's bracket (an empty array when
// nothing was written), the CSV header when no row came, the table's flush.
func (l *ListWriter) Close() error {
	switch l.o.Format {
	case output.JSON:
		if l.n == 0 {
			return output.WriteJSON(l.o, []byte("[]\n"))
		}
		return output.WriteJSON(l.o, []byte("\n]\n"))
	case output.CSV:
		if l.csv == nil {
			l.csv = output.NewCSVWriter(l.o, l.columns)
		}
		return l.csv.Close()
	}
	if l.tw != nil {
		return failure.WriteError(l.tw.Flush())
	}
	return nil
}

// Format is ResolveFormat, for the commands that print through ListWriter
// or a printer of their own.
func Format(f *Factory, command string) (output.Format, error) { return ResolveFormat(f, command) }

// ListOptions are the output options of a command that prints records
// through ListWriter: format on ios.Out, escaped when it is a terminal.
func ListOptions(ios *iostreams.IOStreams, format output.Format) output.Options {
	return output.Options{Format: format, Out: ios.Out, TTY: ios.IsStdoutTTY()}
}

// WriteJSON writes one value as a line of JSON to o.Out, escaped for a
// terminal as output.WriteJSON does.
func WriteJSON(o output.Options, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return output.WriteJSON(o, append(b, '\n'))
}
