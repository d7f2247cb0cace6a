// Command open is bench/browse's child: it opens a document as `tilookup
// browse FILE` does, without a terminal (the file, browse.Load, the model
// at 200x50 and its first screen), browses around (browseAround), and
// prints the time the opening took and the live heap it holds at the
// end. Its peak RSS is read by its parent. main.go uses only what browse
// exported before the streaming load, so the parent can build it against
// an older tree too (-before), with its own limit.go.
package main

import (
	"fmt"
	"os"
	"runtime"
	"time"

	tea "github.com/charmbracelet/bubbletea/v2"

	"github.com/tilookup/tilookup/pkg/browse"
	"github.com/tilookup/tilookup/pkg/cmdutil"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: open FILE")
		os.Exit(2)
	}
	start := time.Now()
	f, err := cmdutil.OpenInput(os.Args[1])
	check(err)
	doc, err := browse.Load(limit(f), os.Args[1])
	check(err)
	f.Close()
	m := browse.New(doc, browse.Options{})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	_ = m.View()
	took := time.Since(start)
	browseAround(m)

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(m)
	fmt.Printf("%d %d %d\n", took.Microseconds(), ms.HeapAlloc, len(doc.Items))
}

// browseAround types what a person browsing types, 100 times over: a
// filter (each key filters every item again) cleared with esc, a page
// down and an opened item. Its garbage is what the collector lets the
// heap grow by while the browser is open.
func browseAround(m *browse.Model) {
	keys := []tea.KeyPressMsg{
		{Code: '/', Text: "/"}, {Code: '1', Text: "1"}, {Code: '2', Text: "2"}, {Code: tea.KeyEscape},
		{Code: tea.KeyPgDown}, {Code: tea.KeyEnter}, {Code: tea.KeyEscape},
	}
	for range 100 {
		for _, k := range keys {
			m.Update(k)
			_ = m.View()
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
