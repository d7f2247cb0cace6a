// Package format is the registry of output formats: the one table that
// -o/--output validation, its flag help, the completion of its values and
// the validation of the output config key read. It imports nothing of
// tilookup's, so that pkg/config can read it without compiling the printers.
//
// Adding a document format (one file for the whole run) is one printer
// and one row: write the printer in pkg/export (a function of an
// export.Document, whose Report every command that writes documents
// gives: search, triage, watch, pivot), add it to pkg/export's printers
// table (saying how a terminal gets it and which flags it reads), and add
// its row to rows below naming the commands that write it. Every one of
// them then writes it through export.WriteDocument, with no change to the
// command; a command whose documents have another shape draws the format
// itself (pivot's graph drawings, watch's Markdown of changes: their
// Document's Printer).
//
// Adding a streaming format is one file plus one row: write the printer
// in the package of the records it prints (pkg/output for search
// results, the command's package for its own records), add its row, and
// make each of those commands' printer constructors
// (output.NewSearchPrinter, triage's newWriter, cmdutil.ListWriter,
// output.PrintEvents) build it: a constructor given a format its command
// does not list returns an error, so a row never makes a command print
// nothing.
//
// Letting one more command print a format is one place too: that row's
// Commands (plus, for a stream, the command's constructor).
package format

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Name is an output format name as given to -o/--output, lower case.
type Name string

const (
	Table  Name = "table"
	JSON   Name = "json"
	NDJSON Name = "ndjson"
	CSV    Name = "csv"
	MD     Name = "md"
	STIX   Name = "stix"
	MISP   Name = "misp"

	DOT     Name = "dot"
	Mermaid Name = "mermaid"
	HTML    Name = "html"
)

// Kind says how a format is written.
type Kind uint8

const (
	// Stream: each record is written as it comes, and a stream of any
	// length runs in bounded memory.
	Stream Kind = iota
	// Document: one document for the whole run, written at the end (the
	// records are kept until then).
	Document
)

// Spec is one row of the registry.
type Spec struct {
	Name Name
	Kind Kind
	// Commands are the commands that print this format, by their name
	// as typed after tilookup (events for events me, cache for cache
	// stats and cache clear, config for config list).
	Commands []string
	Help     string
}

// Streams reports whether records are written as they come.
func (s Spec) Streams() bool { return s.Kind == Stream }

// Supports reports whether command prints this format.
func (s Spec) Supports(command string) bool { return slices.Contains(s.Commands, command) }

// records lists the commands that print records in every streaming format.
// A subcommand that writes other formats than its parent has a row of its
// own ("watch list": its lists, never a document of changes).
var records = []string{"search", "triage", "enrich", "detect", "extract", "events", "watch", "watch list"}

// reports lists the commands that print one fixed report, as text or JSON.
var reports = []string{"version", "cache", "config", "push"}

// rows is the registry, in the order help and completion list formats.
// table is the default (config.DefaultOutput). version and cache print one
// report as text or JSON; config list prints its keys as records, csv
// included.
var rows = []Spec{
	{Name: Table, Kind: Stream, Commands: slices.Concat(records, reports, []string{"pivot"}), Help: "aligned columns for reading"},
	{Name: JSON, Kind: Stream, Commands: slices.Concat(records, reports, []string{"pivot"}), Help: "JSON (an array for several values)"},
	{Name: NDJSON, Kind: Stream, Commands: slices.Concat(records, reports), Help: "one JSON object per line"},
	{Name: CSV, Kind: Stream, Commands: slices.Concat(records, []string{"config"}), Help: "comma-separated values with a header"},
	{Name: MD, Kind: Document, Commands: []string{"search", "triage", "pivot", "watch"}, Help: "a Markdown report of the run"},
	{Name: STIX, Kind: Document, Commands: []string{"search", "triage", "pivot"}, Help: "a STIX 2.1 bundle of the run"},
	{Name: MISP, Kind: Document, Commands: []string{"search", "triage", "pivot", "watch"}, Help: "a MISP event (JSON) of the run"},
	{Name: DOT, Kind: Document, Commands: []string{"pivot"}, Help: "a Graphviz graph"},
	{Name: Mermaid, Kind: Document, Commands: []string{"pivot"}, Help: "a Mermaid flowchart"},
	{Name: HTML, Kind: Document, Commands: []string{"pivot"}, Help: "a self-contained HTML page"},
}

// All returns every row, in help order. The caller must not modify it.
func All() []Spec { return rows }

// Names lists every valid format name, in help order.
func Names() []string {
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = string(r.Name)
	}
	return names
}

// For lists the formats command prints, in help order.
func For(command string) []Name {
	var names []Name
	for _, r := range rows {
		if r.Supports(command) {
			names = append(names, r.Name)
		}
	}
	return names
}

// Lookup returns the row of a format name (case and surrounding spaces
// ignored).
func Lookup(name string) (Spec, bool) {
	n := Name(strings.ToLower(strings.TrimSpace(name)))
	for _, r := range rows {
		if r.Name == n {
			return r, true
		}
	}
	return Spec{}, false
}

// ErrUnknown is wrapped by Parse's error for a name with no row.
var ErrUnknown = errors.New("invalid output format")

// Parse checks a format name; case and surrounding spaces are ignored. ""
// is Table, the default.
func Parse(name string) (Name, error) {
	if strings.TrimSpace(name) == "" {
		return Table, nil
	}
	r, ok := Lookup(name)
	if !ok {
		return "", fmt.Errorf("%w %q: use one of %s", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return r.Name, nil
}

// Check says whether command prints format n: nil, or an error naming the
// commands that do and the formats this one takes. An unknown name is an
// error too.
func Check(command string, n Name) error {
	r, ok := Lookup(string(n))
	if !ok {
		_, err := Parse(string(n))
		return err
	}
	if r.Supports(command) {
		return nil
	}
	return fmt.Errorf("-o %s is written by %s only: use %s here", r.Name, Join(topLevel(r.Commands), "and"), Join(names(For(command)), "or"))
}

// topLevel leaves out the subcommands ("watch list") whose command is
// listed too: the message names commands, not rows.
func topLevel(commands []string) []string {
	var out []string
	for _, c := range commands {
		if parent, _, sub := strings.Cut(c, " "); sub && slices.Contains(commands, parent) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// Resolve decides the format command writes for the output setting name.
// explicit says the name was given as -o on the command line: a format
// the command does not write is then a usage error naming the ones it
// does. A name from the config file or the environment is a preference:
// a command that cannot write it writes a table. An unknown name is an
// error either way, listing the formats command writes.
func Resolve(command, name string, explicit bool) (Name, error) {
	if strings.TrimSpace(name) == "" {
		return Table, nil
	}
	r, ok := Lookup(name)
	switch {
	case !ok:
		return "", fmt.Errorf("%w %q: %s writes %s", ErrUnknown, name, command, Join(names(For(command)), "or"))
	case r.Supports(command):
		return r.Name, nil
	case explicit:
		return "", Check(command, r.Name)
	}
	return Table, nil
}

// Settable lists the formats the output config key may be set to: those
// search, the main command, writes. A preference that most commands would
// ignore is a surprise, not a setting.
func Settable() []string { return names(For("search")) }

// HelpList is the flag help's list of names: "table, json, ndjson, ...".
func HelpList() string { return strings.Join(Names(), ", ") }

func names(ns []Name) []string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return s
}

// Join lists words as prose: "a", "a and b", "a, b or c".
func Join(words []string, conj string) string {
	switch len(words) {
	case 0:
		return "nothing"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}
