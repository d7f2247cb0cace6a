package triage

import (
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/mapfile"
)

// OpenInputs joins the named inputs ("-" is stdin; none is stdin) into
// one text, each read as text or HTML on its own (OpenLazy), with a line
// break after each so that the last word of one never runs into the
// first of the next. Every file is opened now with open (the caller's
// rules: cmdutil.OpenInput refuses a directory), so that a missing one
// fails before anything is read or sent; the func returned closes them.
//
// One large file of plain text is mapped into memory instead (mapText),
// which ioc.Extract then searches where it lies.
func OpenInputs(stdin io.Reader, names []string, f Format, warn func(string), open func(name string) (*os.File, error)) (io.Reader, func(), error) {
	return openInputs(stdin, names, f, warn, open, minMapped)
}

// minMapped is the smallest file OpenInputs maps into memory: below it,
// reading costs no more, and a mapping is one more thing to go wrong.
const minMapped = 1 << 20

func openInputs(stdin io.Reader, names []string, f Format, warn func(string), open func(name string) (*os.File, error), minMapped int64) (io.Reader, func(), error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	var readers []io.Reader
	var files []*os.File
	closeAll := func() {
		for _, fh := range files {
			fh.Close()
		}
	}
	for _, name := range names {
		r := stdin
		if name != "-" {
			fh, err := open(name)
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			files = append(files, fh)
			r = fh
			if len(names) == 1 {
				if m := mapText(fh, name, f, minMapped); m != nil {
					return m, func() { m.unmap(); closeAll() }, nil
				}
			}
		}
		readers = append(readers, OpenLazy(shrinkChecked(r, name), name, f, warn), strings.NewReader("\n"))
	}
	return io.MultiReader(readers...), closeAll, nil
}

// shrinkChecked is r, when it is a regular file, with an error instead of
// the end of the input when the file ends short of the size it had when it
// was opened: cut short while it was read, it would otherwise pass for a
// complete input (a mapped file says so too: ioc.ErrTextGone). A file that
// grows meanwhile (a log being written) is read as far as it goes.
func shrinkChecked(r io.Reader, name string) io.Reader {
	fh, ok := r.(*os.File)
	if !ok {
		return r
	}
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return r
	}
	if name == "-" {
		name = "stdin"
	}
	return &shrinkReader{r: fh, name: name, size: st.Size()}
}

type shrinkReader struct {
	r    io.Reader
	name string
	size int64 // at open
	read int64
}

func (s *shrinkReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.read += int64(n)
	if err == io.EOF && s.read < s.size {
		err = &InputError{Name: s.name, Err: ioc.ErrTextGone}
	}
	return n, err
}

// mappedText is a file of plain text mapped into memory (ioc.Lines): it
// reads as OpenInputs reads a file, its text and a line end, and
// ioc.Extract searches its Lines where they lie.
type mappedText struct {
	data  []byte // the mapping
	text  []byte // data without a UTF-8 byte order mark
	unmap func() error
	r     io.Reader
}

// mapText maps fh when Open would read it as it is (plainHead, readAsIs)
// and it holds at least minMapped bytes; otherwise, or when it cannot be
// mapped, it returns nil, and the file is read as any other.
func mapText(fh *os.File, name string, f Format, minMapped int64) *mappedText {
	if st, err := fh.Stat(); err != nil || st.Size() < minMapped {
		return nil
	}
	data, unmap, err := mapfile.Map(fh)
	if err != nil {
		return nil
	}
	text := data
	skip, ok := plainHead(data[:min(len(data), sniffLen)])
	if ok {
		text = data[skip:]
		ok = readAsIs(f, name, text[:min(len(text), htmlSniffLen)])
	}
	if !ok {
		unmap()
		return nil
	}
	return &mappedText{data: data, text: text, unmap: unmap, r: io.MultiReader(bytes.NewReader(text), strings.NewReader("\n"))}
}

func (m *mappedText) Read(p []byte) (int, error) { return m.r.Read(p) }

// Lines is the text, without the line end Read gives after it.
func (m *mappedText) Lines() []byte { return m.text }

// Release gives back the pages of the text before n, which Extract has
// searched.
func (m *mappedText) Release(n int) { mapfile.Release(m.data, len(m.data)-len(m.text)+n) }
