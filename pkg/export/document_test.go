package export

import (
	"bytes"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/output/format"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// TestEveryDocumentFormatHasAPrinter: each document format the registry
// lists for search or triage (whose documents are reports alone) is
// written by a printer of the layer, to a pipe as the printer writes it.
func TestEveryDocumentFormatHasAPrinter(t *testing.T) {
	for _, command := range []string{"search", "triage"} {
		for _, name := range format.For(command) {
			if spec, _ := format.Lookup(string(name)); spec.Streams() {
				continue
			}
			p, ok := printerOf(name, Records(triageRun(t)))
			if !ok {
				t.Errorf("%s -o %s: no printer", command, name)
				continue
			}
			var got, want bytes.Buffer
			o := Options{Rand: rand.NewChaCha8([32]byte{1})}
			if err := WriteDocument(&got, false, name, Records(triageRun(t)), o); err != nil {
				t.Fatal(err)
			}
			o.Rand = rand.NewChaCha8([32]byte{1})
			if err := p.Write(&want, Records(triageRun(t)), o); err != nil {
				t.Fatal(err)
			}
			if got.Len() == 0 || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s -o %s: WriteDocument wrote %d bytes, the printer %d", command, name, got.Len(), want.Len())
			}
		}
	}
	if err := WriteDocument(io.Discard, false, format.DOT, Records(oneValue(t)), Options{}); err == nil {
		t.Error("-o dot of a report: no error, though no printer writes it")
	}
}

// drawn is a document that draws one format itself, as pivot's does.
type drawn struct {
	Document
	text string
}

func (d drawn) Printer(f format.Name) (Printer, bool) {
	if f != format.MD {
		return Printer{}, false
	}
	return Printer{Name: f, Terminal: Itself, Write: func(w io.Writer, _ Document, _ Options) error {
		_, err := io.WriteString(w, d.text)
		return err
	}}, true
}

// TestWriteDocumentOnATerminal: a document is made safe on a terminal as
// its printer says, and a document's own printer wins over the layer's.
func TestWriteDocumentOnATerminal(t *testing.T) {
	const bidi = "evil\u202egnp.exe"
	r := &report.Report{Title: bidi, Indicators: []report.Indicator{{Value: "198.51.100.7", Type: "ipv4", Resp: decode(t, `{"results": []}`)}}}
	for _, p := range printers {
		var pipe, tty bytes.Buffer
		o := Options{Rand: rand.NewChaCha8([32]byte{2})}
		if err := WriteDocument(&pipe, false, p.Name, Records(r), o); err != nil {
			t.Fatal(err)
		}
		o.Rand = rand.NewChaCha8([32]byte{2})
		if err := WriteDocument(&tty, true, p.Name, Records(r), o); err != nil {
			t.Fatal(err)
		}
		want := []byte(sanitize.Multiline(pipe.String()))
		if p.Terminal == JSON {
			want = sanitize.JSON(pipe.Bytes())
		}
		if !bytes.Equal(tty.Bytes(), want) {
			t.Errorf("-o %s on a terminal is not the sanitized document:\n%s", p.Name, tty.String())
		}
	}
	var b bytes.Buffer
	if err := WriteDocument(&b, true, format.MD, drawn{Records(r), bidi}, Options{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != bidi {
		t.Errorf("a document's own printer: %q, want its bytes as drawn", b.String())
	}
}

// TestCheckFlagsFollowsThePrinters: --tlp and --to-ids are taken by the
// formats whose printer reads them, and refused elsewhere, naming those of
// them the command writes (watch writes no STIX bundle: --tlp names misp
// only).
func TestCheckFlagsFollowsThePrinters(t *testing.T) {
	for _, command := range []string{"search", "triage", "pivot", "watch"} {
		var takeTLP []string
		for _, p := range printers {
			if p.Reads&ReadsTLP != 0 && slices.Contains(format.For(command), p.Name) {
				takeTLP = append(takeTLP, "-o "+string(p.Name))
			}
		}
		if len(takeTLP) == 0 {
			t.Fatalf("%s writes no format that takes --tlp", command)
		}
		for _, spec := range format.All() {
			p, _ := printerOf(spec.Name, Records(&report.Report{}))
			tlp, ids := CheckFlags(command, spec.Name, "amber", false), CheckFlags(command, spec.Name, "", true)
			if (tlp == nil) != (p.Reads&ReadsTLP != 0) || (ids == nil) != (p.Reads&ReadsToIDS != 0) {
				t.Errorf("%s -o %s: --tlp %v, --to-ids %v; its printer reads %b", command, spec.Name, tlp, ids, p.Reads)
			}
			if tlp != nil && !strings.HasSuffix(tlp.Error(), "use it with "+format.Join(takeTLP, "or")) {
				t.Errorf("%s -o %s --tlp: %v", command, spec.Name, tlp)
			}
		}
	}
	if err := CheckFlags("watch", format.JSON, "amber", false); err == nil || strings.Contains(err.Error(), "stix") {
		t.Errorf("watch -o json --tlp: %v, want the formats watch writes only", err)
	}
}

// TestForFile: each ending a printer names finds it, whatever its case;
// another is an error naming the first ending of each.
func TestForFile(t *testing.T) {
	for _, p := range printers {
		for _, end := range p.Files {
			got, err := ForFile("case-42" + strings.ToUpper(end))
			if err != nil || got.Name != p.Name {
				t.Errorf("%s: %s, %v; want %s", end, got.Name, err, p.Name)
			}
		}
	}
	var first []string
	for _, p := range printers {
		if len(p.Files) > 0 {
			first = append(first, p.Files[0])
		}
	}
	if _, err := ForFile("case-42.doc"); err == nil || err.Error() != "name the file "+format.Join(first, "or")+", not case-42.doc" {
		t.Errorf("case-42.doc: %v", err)
	}
	if got := format.Join(first[:min(3, len(first))], "or"); got != ".md, .stix.json or .misp.json" {
		t.Errorf("the first endings read %q", got) // browse's message, as it was
	}
}
