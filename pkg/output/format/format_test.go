package format

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Name
		bad  bool
	}{
		{"", Table, false},
		{"table", Table, false},
		{" JSON ", JSON, false},
		{"ndjson", NDJSON, false},
		{"Csv", CSV, false},
		{"md", MD, false},
		{"stix", STIX, false},
		{"MISP", MISP, false},
		{"yaml", "", true},
		// Reserved names have no row: -o must refuse them until their
		// printer exists.
		{"misp", MISP, false},
		{"dot", DOT, false},
		{"Mermaid", Mermaid, false},
		{"html", HTML, false},
	} {
		got, err := Parse(tc.in)
		if tc.bad {
			if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "use one of table, json, ndjson, csv, md, stix, misp, dot, mermaid, html") {
				t.Errorf("Parse(%q) = %q, %v; want an unknown-format error listing the formats", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		command string
		f       Name
		err     string // "" when the command prints f
	}{
		{"search", STIX, ""},
		{"triage", MD, ""},
		{"detect", CSV, ""},
		{"events", Table, ""},
		{"cache", JSON, ""},
		{"detect", STIX, "-o stix is written by search, triage and pivot only: use table, json, ndjson or csv here"},
		{"extract", MD, "-o md is written by search, triage, pivot and watch only: use table, json, ndjson or csv here"},
		{"pivot", HTML, ""},
		{"pivot", CSV, "-o csv is written by search, triage, enrich, detect, extract, events, watch and config only: use table, json, md, stix, misp, dot, mermaid or html here"},
		{"search", DOT, "-o dot is written by pivot only: use table, json, ndjson, csv, md, stix or misp here"},
		{"cache", CSV, "-o csv is written by search, triage, enrich, detect, extract, events, watch and config only: use table, json or ndjson here"},
		{"config", CSV, ""},
		{"search", "yaml", `invalid output format "yaml"`},
		{"triage", MISP, ""},
		{"pivot", MISP, ""},
		{"watch", MISP, ""},
		{"detect", MISP, "-o misp is written by search, triage, pivot and watch only"},
	} {
		err := Check(tc.command, tc.f)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Check(%s, %s) = %v, want nil", tc.command, tc.f, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Check(%s, %s) = %v, want %q", tc.command, tc.f, err, tc.err)
		}
	}
}

// TestRows: every row is reachable and consistent, so that a row added by
// copy and paste cannot shadow another or be printed by no command.
func TestRows(t *testing.T) {
	seen := map[Name]bool{}
	for _, r := range All() {
		if seen[r.Name] {
			t.Errorf("%s: two rows", r.Name)
		}
		seen[r.Name] = true
		if r.Name != Name(strings.ToLower(string(r.Name))) || strings.TrimSpace(string(r.Name)) != string(r.Name) {
			t.Errorf("%s: a name is lower case without spaces", r.Name)
		}
		if len(r.Commands) == 0 || r.Help == "" {
			t.Errorf("%s: no command prints it, or no help", r.Name)
		}
		for _, c := range r.Commands {
			if !slices.Contains(For(c), r.Name) {
				t.Errorf("For(%s) misses %s", c, r.Name)
			}
		}
	}
	if got := HelpList(); got != "table, json, ndjson, csv, md, stix, misp, dot, mermaid, html" {
		t.Errorf("HelpList() = %q", got)
	}
	if !slices.Equal(For("version"), []Name{Table, JSON, NDJSON}) {
		t.Errorf("For(version) = %v", For("version"))
	}
}

// TestResolve walks the registry: every command and every format, given
// on the command line (strict) or as a preference (table when the
// command cannot write it).
func TestResolve(t *testing.T) {
	var commands []string
	for _, r := range All() {
		for _, c := range r.Commands {
			if !slices.Contains(commands, c) {
				commands = append(commands, c)
			}
		}
	}
	for _, c := range commands {
		own := names(For(c))
		for _, r := range All() {
			for _, explicit := range []bool{true, false} {
				got, err := Resolve(c, " "+strings.ToUpper(string(r.Name)), explicit)
				switch {
				case r.Supports(c):
					if err != nil || got != r.Name {
						t.Errorf("Resolve(%s, %s, %v) = %q, %v; want %q", c, r.Name, explicit, got, err, r.Name)
					}
				case explicit:
					if err == nil || !strings.Contains(err.Error(), Join(own, "or")) {
						t.Errorf("Resolve(%s, -o %s) = %q, %v; want an error naming %v", c, r.Name, got, err, own)
					}
				default:
					if err != nil || got != Table {
						t.Errorf("Resolve(%s, %s as a preference) = %q, %v; want table", c, r.Name, got, err)
					}
				}
			}
		}
		for _, explicit := range []bool{true, false} {
			if got, err := Resolve(c, "jsn", explicit); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), c+" writes "+Join(own, "or")) {
				t.Errorf("Resolve(%s, jsn) = %q, %v; want an unknown-format error naming %s's formats", c, got, err, c)
			}
		}
		if got, err := Resolve(c, "", true); err != nil || got != Table {
			t.Errorf("Resolve(%s, \"\") = %q, %v; want table", c, got, err)
		}
	}
}

func TestSettableIsWhatSearchWrites(t *testing.T) {
	for _, r := range All() {
		if slices.Contains(Settable(), string(r.Name)) != r.Supports("search") {
			t.Errorf("Settable() = %v: %s is settable exactly when search writes it", Settable(), r.Name)
		}
	}
}

// A subcommand with a row of its own writes what its row says, and the
// refusals name commands, not rows.
func TestSubcommandRow(t *testing.T) {
	if got := names(For("watch list")); !slices.Equal(got, []string{"table", "json", "ndjson", "csv"}) {
		t.Errorf(`For("watch list") = %v`, got)
	}
	err := Check("watch list", MD)
	if err == nil || !strings.Contains(err.Error(), "use table, json, ndjson or csv here") {
		t.Errorf(`Check("watch list", md) = %v`, err)
	}
	if err := Check("pivot", CSV); err == nil || strings.Contains(err.Error(), "watch list") {
		t.Errorf(`Check("pivot", csv) = %v: names a subcommand beside its command`, err)
	}
}
