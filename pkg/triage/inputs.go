package triage

import (
	"io"
	"os"
	"strings"
)

// OpenInputs joins the named inputs ("-" is stdin; none is stdin) into
// one text, each read as text or HTML on its own (OpenLazy), with a line
// break after each so that the last word of one never runs into the
// first of the next. Every file is opened now with open (the caller's
// rules: cmdutil.OpenInput refuses a directory), so that a missing one
// fails before anything is read or sent; the func returned closes them.
func OpenInputs(stdin io.Reader, names []string, f Format, warn func(string), open func(name string) (*os.File, error)) (io.Reader, func(), error) {
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
		}
		readers = append(readers, OpenLazy(r, name, f, warn), strings.NewReader("\n"))
	}
	return io.MultiReader(readers...), closeAll, nil
}
