package pivot

import (
	"bytes"
	"testing"

	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/output/format"
)

// TestEveryPivotFormatIsWritten: each format the registry lists for pivot
// is written from the walk's document, by a drawing of pivot's own where
// it has one, else by the printer layer's.
func TestEveryPivotFormatIsWritten(t *testing.T) {
	g := sample(t)
	for _, name := range format.For("pivot") {
		var b bytes.Buffer
		if err := writeDoc(&b, name, g, export.Options{}); err != nil || b.Len() == 0 {
			t.Errorf("-o %s: %d bytes, %v", name, b.Len(), err)
		}
	}
}
