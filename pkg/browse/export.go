package browse

import (
	"fmt"
	"os"
	"time"

	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/report"
)

// Export writes items to the file name through the project's document
// printers (export.ForFile, by the name's ending): Markdown (defanged, for
// a ticket) for .md, a STIX 2.1 bundle for .stix.json, a MISP event for
// .misp.json. A file that exists is never overwritten unless overwrite
// is set: the error is then fs.ErrExist's, for the caller to ask.
func Export(name, title string, items []Item, overwrite bool) (string, error) {
	p, err := export.ForFile(name)
	if err != nil {
		return "", err
	}
	r := &report.Report{Title: title, Time: time.Now().UTC()}
	for _, it := range items {
		if in, ok := it.indicator(); ok {
			r.Indicators = append(r.Indicators, in)
		} else if it.skip != nil {
			r.Skipped = append(r.Skipped, *it.skip)
		}
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(name, flags, 0o644)
	if err != nil {
		return "", err
	}
	// Defanged: a Markdown file goes into a ticket.
	err = p.Write(f, export.Records(r), export.Options{Defang: true})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %d indicators to %s (%s)", len(items), name, p.What), nil
}
