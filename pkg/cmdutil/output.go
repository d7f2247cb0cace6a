package cmdutil

import (
	"fmt"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/output/format"
)

// OutputOptions resolves the output format of command (see ResolveFormat)
// and the terminal facts for a printer: every command's width, colour and
// hyperlink support are decided here, from f.IO. --jq implies JSON when
// the format is table or csv.
func OutputOptions(f *Factory, command, jq string) (output.Options, error) {
	format, err := ResolveFormat(f, command)
	if err != nil {
		return output.Options{}, err
	}
	if jq != "" && format != output.JSON && format != output.NDJSON {
		// --jq reads JSON: a configured format gives way to it, but one
		// asked for on the same command line contradicts it (it used to
		// be dropped without a word: -o md --jq printed JSON).
		if f.Flags != nil && f.Flags.Changed("output") {
			return output.Options{}, failure.New(failure.Usage, "--jq filters JSON: use it with -o json or -o ndjson, not -o %s", format)
		}
		format = output.JSON
	}
	return output.Options{
		Format:     format,
		Out:        f.IO.Out,
		TTY:        f.IO.IsStdoutTTY(),
		Color:      f.IO.ColorEnabled(),
		Width:      f.IO.TerminalWidth(),
		Hyperlinks: f.IO.HyperlinksEnabled(),
		JQ:         jq,
	}, nil
}

// ResolveFormat is the output format command writes: the one place that
// reads the output setting. -o on the command line is checked strictly
// (a format the command does not write is a usage error naming those it
// does); the same name from the environment or the config file is a
// preference that falls back to a table (format.Resolve).
func ResolveFormat(f *Factory, command string) (output.Format, error) {
	name, err := f.Get("output")
	if err != nil {
		return "", err
	}
	explicit := f.Flags != nil && f.Flags.Changed("output")
	fm, err := format.Resolve(command, name, explicit)
	if err != nil {
		return "", failure.New(failure.Usage, "%v", err)
	}
	return fm, nil
}

// StartPager sends f.IO.Out through the user's pager (TILOOKUP_PAGER, the
// pager config key, PAGER, else less -FRX) when stdout is a terminal and
// noPager (--no-pager) is off. Call it before OutputOptions, and call the
// returned function when the output is complete: it waits for the user to
// quit the pager. A pager that cannot start is reported on stderr and the
// output goes to the terminal directly.
func StartPager(f *Factory, noPager bool) (stop func()) {
	if noPager || !f.IO.IsStdoutTTY() {
		return func() {}
	}
	cmd, _ := f.Get("pager")
	f.IO.SetPager(strings.TrimSpace(cmd))
	if err := f.IO.StartPager(); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "tilookup: warning: cannot start the pager %q: %v\n", f.IO.PagerCommand(), err)
		return func() {}
	}
	return f.IO.StopPager
}

// IsDocument reports whether f is one document for the whole run (md,
// stix, misp: the registry's Document kind), written once every value is
// looked up.
func IsDocument(f output.Format) bool {
	r, ok := format.Lookup(string(f))
	return ok && !r.Streams()
}
