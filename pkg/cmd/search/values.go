package search

import (
	"io"

	"github.com/tilookup/tilookup/pkg/lookup"
)

// Values is search's input for another command that looks lists up
// (watch): the FILEs (stdin when none, "-" too) read with every rule of
// input.go, as search -f reads them, each regular file opened now so that
// a missing one fails before any request. close ends the run's files.
func Values(stdin io.Reader, files []string, refang bool) (src lookup.Source, close func(), err error) {
	if len(files) == 0 {
		files = []string{"-"}
	}
	p := &inputPlan{names: files, multi: true}
	for _, name := range files {
		f, err := openNow(name)
		if err != nil {
			p.close()
			return nil, nil, err
		}
		p.files = append(p.files, f)
	}
	return &source{in: newInputs(p, stdin), refang: refang}, p.close, nil
}
