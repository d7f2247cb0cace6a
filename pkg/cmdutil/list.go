package cmdutil

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// ListWriter streams simple records (detect and extract results) in any
// output format: a JSON array written element by element, NDJSON lines,
// CSV with a header, or an aligned table. Only the table buffers, and only
// when it has several columns; a one-column table is one value per line.
type ListWriter struct {
	format  output.Format
	out     io.Writer
	columns []string
	n       int
	csv     *csv.Writer
	tw      *tabwriter.Writer
}

// NewListWriter starts a list with the given table/CSV column names.
func NewListWriter(format output.Format, out io.Writer, columns []string) *ListWriter {
	return &ListWriter{format: format, out: out, columns: columns}
}

// Write adds one record: obj for JSON formats, cells for table and CSV.
func (l *ListWriter) Write(obj any, cells []string) error {
	return ioError(l.write(obj, cells))
}

func (l *ListWriter) write(obj any, cells []string) error {
	defer func() { l.n++ }()
	switch l.format {
	case output.JSON:
		b, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		sep := ",\n"
		if l.n == 0 {
			sep = "[\n"
		}
		_, err = fmt.Fprintf(l.out, "%s%s", sep, b)
		return err
	case output.NDJSON:
		b, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(l.out, "%s\n", b)
		return err
	case output.CSV:
		if l.csv == nil {
			l.csv = csv.NewWriter(l.out)
			if err := l.csv.Write(l.columns); err != nil {
				return err
			}
		}
		safe := make([]string, len(cells))
		for i, c := range cells {
			safe[i] = output.CSVCell(c)
		}
		err := l.csv.Write(safe)
		l.csv.Flush()
		return err
	default:
		if len(cells) == 1 {
			_, err := fmt.Fprintln(l.out, sanitize.String(cells[0]))
			return err
		}
		if l.tw == nil {
			l.tw = tabwriter.NewWriter(l.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(l.tw, strings.ToUpper(strings.Join(l.columns, "\t")))
		}
		safe := make([]string, len(cells))
		for i, c := range cells {
			safe[i] = sanitize.String(c)
		}
		_, err := fmt.Fprintln(l.tw, strings.Join(safe, "\t"))
		return err
	}
}

// Close ends the list: the JSON array's bracket (an empty array when
// nothing was written), the table's flush.
func (l *ListWriter) Close() error { return ioError(l.close()) }

// ioError gives a failed write its kind: not a usage mistake, exit 2 all
// the same, and no pointer to --help.
func ioError(err error) error {
	if err == nil {
		return nil
	}
	return failure.Wrap(failure.IO, err, "cannot write the output: "+err.Error())
}

func (l *ListWriter) close() error {
	switch l.format {
	case output.JSON:
		if l.n == 0 {
			_, err := fmt.Fprintln(l.out, "[]")
			return err
		}
		_, err := fmt.Fprintln(l.out, "\n]")
		return err
	case output.CSV:
		if l.csv == nil {
			l.csv = csv.NewWriter(l.out)
			l.csv.Write(l.columns)
		}
		l.csv.Flush()
		return l.csv.Error()
	}
	if l.tw != nil {
		return l.tw.Flush()
	}
	return nil
}

// Format resolves the output format setting for command, a command
// without --jq: a format the registry does not list for it is a usage
// error.
func Format(f *Factory, command string) (output.Format, error) {
	name, err := f.Get("output")
	if err != nil {
		return "", err
	}
	format, err := output.ParseFormat(name)
	if err != nil {
		return "", err
	}
	return format, output.CheckFormat(command, format)
}

// WriteJSON writes one value as a line of JSON.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
