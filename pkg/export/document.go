package export

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output/format"
	"github.com/tilookup/tilookup/pkg/report"
)

// Document is a run handed to the document printers: search's and
// triage's report, watch's changes, pivot's graph. Every document can be
// read as a report, so that a printer written once serves every command
// that writes documents; the optional interfaces below carry what a
// report cannot hold.
type Document interface {
	// Report is the run's indicators, in input order.
	Report() *report.Report
}

// Linked is a document whose indicators name each other (pivot's edges):
// a STIX bundle relates their observables.
type Linked interface {
	Links() []Link
}

// Evented is a document that makes its own MISP event, because its
// findings say what a report cannot (pivot's related values, watch's
// changes).
type Evented interface {
	MISPRun() MISPRun
}

// Drawn is a document with printers of its own for some formats, which
// win over the layer's: pivot's drawings of its graph, watch's Markdown
// of its changes.
type Drawn interface {
	Printer(format.Name) (Printer, bool)
}

// Records is the document of a report alone (search, triage, browse).
func Records(r *report.Report) Document { return records{r} }

type records struct{ r *report.Report }

func (d records) Report() *report.Report { return d.r }

// Options are the flags a printer may read.
type Options struct {
	// TLP marks a STIX bundle or tags a MISP event (ParseTLP's levels).
	TLP string
	// ToIDS sets to_ids on a MISP event's attributes (MISPOptions).
	ToIDS bool
	// Defang writes the indicators of a document for people defanged.
	Defang bool
	// Rand is the source of the random ids of a bundle or an event; nil
	// means crypto/rand. Tests set it to get the same document twice.
	Rand io.Reader
}

// Terminal says how a printer's document is made safe on a terminal.
type Terminal uint8

const (
	// Text: the characters a terminal would interpret are shown as
	// harmless stand-ins (sanitize.Multiline).
	Text Terminal = iota
	// JSON: they become \u escapes, the same JSON value (sanitize.JSON).
	JSON
	// Itself: the printer knows whether it writes to a terminal and
	// takes care of it (pivot's drawings).
	Itself
)

// Reads are the flags a printer reads beyond the document.
type Reads uint8

const (
	ReadsTLP Reads = 1 << iota
	ReadsToIDS
)

// Printer writes a document in one format.
type Printer struct {
	Name     format.Name
	Terminal Terminal
	Reads    Reads
	// Files are the endings of a file name that browse's export writes
	// this format for (the first one named in its error); What names the
	// format there. None: browse does not write it.
	Files []string
	What  string
	Write func(io.Writer, Document, Options) error
}

// printers are the layer's printers, one per document format of the
// registry (pkg/output/format) that every command writing documents
// shares. A command's Drawn document may print a format of its own.
var printers = []Printer{
	{Name: format.MD, Files: []string{".md", ".markdown"}, What: "Markdown", Write: printMarkdown},
	{Name: format.STIX, Terminal: JSON, Reads: ReadsTLP, Files: []string{".stix.json"}, What: "STIX 2.1", Write: printSTIX},
	{Name: format.MISP, Terminal: JSON, Reads: ReadsTLP | ReadsToIDS, Files: []string{".misp.json"}, What: "MISP", Write: printMISP},
}

func printMarkdown(w io.Writer, d Document, o Options) error {
	return Markdown(w, d.Report(), MarkdownOptions{Defang: o.Defang})
}

func printSTIX(w io.Writer, d Document, o Options) error {
	var links []Link
	if l, ok := d.(Linked); ok {
		links = l.Links()
	}
	return STIXLinked(w, d.Report(), links, STIXOptions{TLP: o.TLP, Rand: o.Rand})
}

func printMISP(w io.Writer, d Document, o Options) error {
	opts := MISPOptions{TLP: o.TLP, ToIDS: o.ToIDS, Rand: o.Rand}
	if e, ok := d.(Evented); ok {
		return MISPEvent(w, e.MISPRun(), opts)
	}
	// Skipped values are never attributes: MISP writes matches only.
	return MISP(w, d.Report(), opts)
}

// printerOf is the printer of format name for d: d's own, else the
// layer's.
func printerOf(name format.Name, d Document) (Printer, bool) {
	if dr, ok := d.(Drawn); ok {
		if p, ok := dr.Printer(name); ok {
			return p, true
		}
	}
	for _, p := range printers {
		if p.Name == name {
			return p, true
		}
	}
	return Printer{}, false
}

// WriteDocument writes d to w in format name with the flags o. On a
// terminal (tty) the document is made safe as its printer says (see
// Write). A format with no printer for d is an error: the registry lists
// it for a command that cannot write it.
func WriteDocument(w io.Writer, tty bool, name format.Name, d Document, o Options) error {
	p, ok := printerOf(name, d)
	if !ok {
		return failure.New(failure.Usage, "no printer writes -o %s of this command", name)
	}
	write := func(w io.Writer) error { return p.Write(w, d, o) }
	if p.Terminal == Itself {
		return write(w)
	}
	return Write(w, tty, p.Terminal == JSON, write)
}

// ForFile is the printer browse's export uses for the file name, by its
// ending (case ignored); an error names the endings it knows.
func ForFile(name string) (Printer, error) {
	lower := strings.ToLower(name)
	for _, p := range printers {
		for _, end := range p.Files {
			if strings.HasSuffix(lower, end) {
				return p, nil
			}
		}
	}
	return Printer{}, fmt.Errorf("name the file %s, not %s", FileEndings(), name)
}

// FileEndings names, as ".md, .stix.json or .misp.json", the file endings
// browse's export writes: each printer's first.
func FileEndings() string {
	var endings []string
	for _, p := range printers {
		if len(p.Files) > 0 {
			endings = append(endings, p.Files[0])
		}
	}
	return format.Join(endings, "or")
}

// reading lists, as "-o stix or -o misp", the formats command writes whose
// printer reads the flag.
func reading(command string, flag Reads) string {
	writes := format.For(command)
	var names []string
	for _, p := range printers {
		if p.Reads&flag != 0 && slices.Contains(writes, p.Name) {
			names = append(names, "-o "+string(p.Name))
		}
	}
	return format.Join(names, "or")
}

// reads reports whether the layer's printer of f reads the flag.
func reads(f format.Name, flag Reads) bool {
	for _, p := range printers {
		if p.Name == f {
			return p.Reads&flag != 0
		}
	}
	return false
}
