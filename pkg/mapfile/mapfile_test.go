package mapfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/ioc"
)

func writeFile(t *testing.T, data []byte) *os.File {
	t.Helper()
	name := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func mapOrSkip(t *testing.T, f *os.File) ([]byte, func() error) {
	t.Helper()
	data, unmap, err := Map(f)
	if errors.Is(err, ErrUnsupported) && runtime.GOOS == "windows" {
		t.Skip("no mmap here")
	}
	if err != nil {
		t.Fatal(err)
	}
	return data, unmap
}

func TestMapReadsTheFile(t *testing.T) {
	want := bytes.Repeat([]byte("seen at 192.0.2.1 and evil.example.com\n"), 1000)
	data, unmap := mapOrSkip(t, writeFile(t, want))
	if !bytes.Equal(data, want) {
		t.Errorf("the mapping holds %d bytes, not the file's %d", len(data), len(want))
	}
	if err := unmap(); err != nil {
		t.Fatal(err)
	}
}

func TestMapRefusesWhatItCannotMap(t *testing.T) {
	if _, _, err := Map(writeFile(t, nil)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("an empty file: %v, want ErrUnsupported", err)
	}
	dir, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	if _, _, err := Map(dir); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a directory: %v, want ErrUnsupported", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, _, err := Map(r); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a pipe: %v, want ErrUnsupported", err)
	}
}

// A file cut short while it is mapped faults where its pages are gone
// (SIGBUS): ExtractText reports that as an error, on one goroutine or on
// several, and the program goes on.
func TestFileCutShortWhileMapped(t *testing.T) {
	var text bytes.Buffer
	for i := 0; text.Len() < 4<<20; i++ {
		fmt.Fprintf(&text, "host-%d.example.com talked to 10.%d.%d.%d\n", i, i>>16&255, i>>8&255, i&255)
	}
	for _, procs := range []int{1, 2} {
		f := writeFile(t, text.Bytes())
		data, unmap := mapOrSkip(t, f)
		if err := os.Truncate(f.Name(), 0); err != nil {
			t.Fatal(err)
		}
		old := runtime.GOMAXPROCS(procs)
		err := ioc.ExtractText(data, ioc.ExtractOptions{}, func(ioc.Indicator) error { return nil })
		runtime.GOMAXPROCS(old)
		if !errors.Is(err, ioc.ErrTextGone) {
			t.Errorf("GOMAXPROCS=%d: %v, want ErrTextGone", procs, err)
		}
		if err := unmap(); err != nil {
			t.Fatal(err)
		}
	}
}

// Release takes the pages out of the process's memory, and what is read
// of them again is the file still.
func TestReleaseGivesPagesBack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Release does nothing here")
	}
	want := bytes.Repeat([]byte("192.0.2.1 evil.example.com\n"), (16<<20)/27)
	data, unmap := mapOrSkip(t, writeFile(t, want))
	defer unmap()
	sum := 0
	for i := 0; i < len(data); i += 4096 {
		sum += int(data[i])
	}
	before := rssFile(t)
	Release(data, len(data)-1000) // the last, partial page is kept
	after := rssFile(t)
	if before-after < 12<<20 {
		t.Errorf("file pages in memory: %d KiB before Release, %d KiB after; want 12 MiB fewer", before>>10, after>>10)
	}
	if !bytes.Equal(data, want) {
		t.Error("the mapping reads otherwise once released")
	}
	if sum == 0 {
		t.Error("the file's bytes read as zeros")
	}
}

// rssFile is how much of mapped files is in the process's memory.
func rssFile(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		var kb int
		if _, err := fmt.Sscanf(line, "RssFile: %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// A file of one long line is searched as it is read: its first value is
// out before the rest of the file is in memory (the search for the end of
// a block's last line is bounded).
func TestOneLongLineIsNotReadThroughFirst(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/status")
	}
	line := bytes.Repeat([]byte("198.51.100.7 word "), (40<<20)/18)
	data, unmap := mapOrSkip(t, writeFile(t, line))
	defer unmap()
	base := rssFile(t)
	var atFirst int
	err := ioc.ExtractText(data, ioc.ExtractOptions{}, func(ioc.Indicator) error {
		if atFirst == 0 {
			atFirst = rssFile(t)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if grew := atFirst - base; grew > 16<<20 {
		t.Errorf("%d MiB of the 40 MiB line were in memory when its first value came out, want at most 16", grew>>20)
	}
}
