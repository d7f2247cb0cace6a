package browse

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/report"
)

// Export writes items to the file name through the project's exporters:
// Markdown (defanged, for a ticket) for .md, a STIX 2.1 bundle for
// .stix.json, a MISP event for .misp.json.
func Export(name, title string, items []Item) (string, error) {
	write, what, err := exporter(name)
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
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", err
	}
	err = write(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %d indicators to %s (%s)", len(items), name, what), nil
}

func exporter(name string) (func(io.Writer, *report.Report) error, string, error) {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".md") || strings.HasSuffix(lower, ".markdown"):
		return func(w io.Writer, r *report.Report) error {
			return export.Markdown(w, r, export.MarkdownOptions{Defang: true})
		}, "Markdown", nil
	case strings.HasSuffix(lower, ".stix.json"):
		return func(w io.Writer, r *report.Report) error { return export.STIX(w, r, export.STIXOptions{}) }, "STIX 2.1", nil
	case strings.HasSuffix(lower, ".misp.json"):
		return func(w io.Writer, r *report.Report) error { return export.MISP(w, r, export.MISPOptions{}) }, "MISP", nil
	}
	return nil, "", fmt.Errorf("name the file .md, .stix.json or .misp.json, not %s", name)
}
