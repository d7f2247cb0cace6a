package triage

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
)

// Allowlist is the analyst's own list of values not to look up: one entry
// per line, each an exact value, an address or CIDR block, or a domain
// (which covers its subdomains; "*.example.com" and ".example.com" are
// read as example.com). Blank lines and "#" comments are ignored.
type Allowlist struct {
	exact   map[string]string // value -> entry as written
	domains map[string]string
	cidrs   prefixSet
	entries []string // by index, for cidrs
}

// LoadAllowlist reads an allow-list file.
func LoadAllowlist(path string) (*Allowlist, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, failure.Wrap(failure.IO, err, fmt.Sprintf("cannot read the allow-list %s: %v", path, unwrapPath(err)))
	}
	defer f.Close()
	a, err := ReadAllowlist(f, path)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// ReadAllowlist reads allow-list entries from r; name is used in errors.
func ReadAllowlist(r io.Reader, name string) (*Allowlist, error) {
	a := &Allowlist{exact: map[string]string{}, domains: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), ioc.MaxLen+1)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := a.add(line); err != nil {
			return nil, failure.New(failure.Usage, "%s:%d: %v", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, failure.Wrap(failure.IO, err, fmt.Sprintf("cannot read the allow-list %s: %v", name, err))
	}
	return a, nil
}

func (a *Allowlist) add(entry string) error {
	if p, ok := parsePrefix(entry); ok {
		a.entries = append(a.entries, entry)
		a.cidrs.add(p, len(a.entries)-1)
		return nil
	}
	host := strings.TrimPrefix(strings.TrimPrefix(entry, "*"), ".")
	if ioc.Detect(host) == ioc.Domain {
		a.domains[strings.ToLower(strings.TrimSuffix(host, "."))] = entry
		return nil
	}
	v, t, err := ioc.Prepare(entry, true)
	if err != nil {
		return err
	}
	if t == ioc.Unknown {
		return fmt.Errorf("%q is not a value triage looks up (a hash, address, CIDR block, domain, URL, e-mail address or CVE ID)", entry)
	}
	a.exact[strings.ToLower(v)] = entry
	return nil
}

// Len is the number of entries.
func (a *Allowlist) Len() int {
	if a == nil {
		return 0
	}
	return len(a.exact) + len(a.domains) + len(a.entries)
}

func (a *Allowlist) match(c candidate) string {
	if a == nil {
		return ""
	}
	if e, ok := a.exact[c.value]; ok {
		return "allowlist: " + e
	}
	var found string
	switch {
	case c.addr.IsValid():
		a.cidrs.find(c.addr, func(i int) bool { found = a.entries[i]; return true })
	case c.typ == ioc.Domain:
		domainSuffixes(c.value, func(d string) bool {
			found = a.domains[d]
			return found != ""
		})
	}
	if found != "" {
		return "allowlist: " + found
	}
	return ""
}

// Warninglists are MISP warning lists (github.com/MISP/misp-warninglists):
// lists of well-known values (public resolvers, cloud ranges, top sites,
// sinkholes) that make false positives. Lists of type string, cidr,
// hostname and substring are used; regex lists are not. A value on a
// string, hostname or substring list is skipped; an address in the ranges
// of a cidr list is looked up and marked with the list's name.
type Warninglists struct {
	lists   []warninglist
	exact   map[string][]int // value -> lists
	hosts   map[string][]int // host name -> hostname lists
	cidrs   prefixSet        // -> index into cidrOf
	cidrOf  [][]int          // lists of each distinct prefix
	substr  []substring
	ignored []string // lists not used (regex), by name
}

type warninglist struct {
	name  string
	types typeSet
}

type substring struct {
	s    string
	list int
}

// typeSet is the indicator types a list applies to.
type typeSet map[ioc.Type]bool

// listFile is the part of a MISP list.json that matters here.
type listFile struct {
	Name               string   `json:"name"`
	Type               string   `json:"type"`
	List               []string `json:"list"`
	MatchingAttributes []string `json:"matching_attributes"`
}

// LoadWarninglists reads every lists/*/list.json under dir, a checkout of
// MISP's warninglists repository (dir may also be its lists directory).
func LoadWarninglists(dir string) (*Warninglists, error) {
	files, err := listFiles(dir)
	if err != nil {
		return nil, err
	}
	w := &Warninglists{exact: map[string][]int{}, hosts: map[string][]int{}}
	for _, path := range files {
		if err := w.load(path); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func listFiles(dir string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, failure.Wrap(failure.IO, err, fmt.Sprintf("cannot read the warning lists %s: %v", dir, unwrapPath(err)))
	}
	for _, pattern := range []string{"lists/*/list.json", "*/list.json"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		if len(files) > 0 {
			sort.Strings(files)
			return files, nil
		}
	}
	return nil, failure.New(failure.Usage, "no warning lists in %s: expected lists/*/list.json, as in a checkout of github.com/MISP/misp-warninglists", dir)
}

func (w *Warninglists) load(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return failure.Wrap(failure.IO, err, fmt.Sprintf("cannot read the warning list %s: %v", path, unwrapPath(err)))
	}
	var lf listFile
	if err := json.Unmarshal(data, &lf); err != nil {
		return failure.New(failure.Usage, "%s is not a MISP warning list: %v", path, err)
	}
	if lf.Name == "" {
		lf.Name = filepath.Base(filepath.Dir(path))
	}
	idx := len(w.lists)
	switch lf.Type {
	case "string", "cidr", "hostname", "substring":
	case "regex":
		w.ignored = append(w.ignored, lf.Name)
		return nil
	default:
		return failure.New(failure.Usage, "%s: unknown warning list type %q (want string, cidr, hostname, substring or regex)", path, lf.Type)
	}
	w.lists = append(w.lists, warninglist{name: lf.Name, types: attributeTypes(lf.MatchingAttributes)})
	for _, e := range lf.List {
		w.addEntry(lf.Type, strings.TrimSpace(e), idx)
	}
	return nil
}

func (w *Warninglists) addEntry(kind, e string, list int) {
	if e == "" {
		return
	}
	switch kind {
	case "cidr":
		p, ok := parsePrefix(e)
		if !ok {
			return // MISP skips what it cannot parse too
		}
		i := w.cidrs.add(p, len(w.cidrOf))
		if i == len(w.cidrOf) {
			w.cidrOf = append(w.cidrOf, nil)
		}
		w.cidrOf[i] = appendList(w.cidrOf[i], list)
	case "hostname":
		h := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(e, "*"), "."), "."))
		w.hosts[h] = appendList(w.hosts[h], list)
	case "substring":
		w.substr = append(w.substr, substring{strings.ToLower(e), list})
	default:
		v := strings.ToLower(strings.TrimSuffix(e, "."))
		w.exact[v] = appendList(w.exact[v], list)
	}
}

func appendList(ls []int, list int) []int {
	if len(ls) > 0 && ls[len(ls)-1] == list {
		return ls
	}
	return append(ls, list)
}

// Names are the lists in use, in load order.
func (w *Warninglists) Names() []string {
	if w == nil {
		return nil
	}
	names := make([]string, len(w.lists))
	for i, l := range w.lists {
		names[i] = l.name
	}
	return names
}

// Ignored names the lists that are not used (regex lists).
func (w *Warninglists) Ignored() []string {
	if w == nil {
		return nil
	}
	return w.ignored
}

// match is the first list (in load order) of type string, hostname or
// substring that holds c, as a skip reason; "" when none does. CIDR lists
// mark (ranges), never skip.
func (w *Warninglists) match(c candidate) string {
	if w == nil {
		return ""
	}
	best := -1
	take := func(ls []int) {
		for _, l := range ls {
			if w.lists[l].types.has(c.typ) && (best < 0 || l < best) {
				best = l
			}
		}
	}
	take(w.exact[c.value])
	if c.typ == ioc.Domain {
		domainSuffixes(c.value, func(d string) bool { take(w.hosts[d]); return false })
	}
	for _, s := range w.substr {
		if strings.Contains(c.value, s.s) {
			take([]int{s.list})
		}
	}
	if best < 0 {
		return ""
	}
	return "warninglist: " + w.lists[best].name
}

// ranges adds to marks the CIDR lists whose ranges hold c's address.
func (w *Warninglists) ranges(c candidate, marks []int) []int {
	if w == nil || !c.addr.IsValid() {
		return marks
	}
	w.cidrs.find(c.addr, func(i int) bool {
		for _, l := range w.cidrOf[i] {
			if w.lists[l].types.has(c.typ) && !slices.Contains(marks, l) {
				marks = append(marks, l)
			}
		}
		return false
	})
	return marks
}

// names are the names of lists, in load order; nil for none.
func (w *Warninglists) names(lists []int) []string {
	if len(lists) == 0 {
		return nil
	}
	slices.Sort(lists)
	out := make([]string, len(lists))
	for i, l := range lists {
		out[i] = w.lists[l].name
	}
	return out
}

func (t typeSet) has(x ioc.Type) bool { return t == nil || t[x] }

// attributeTypes maps a list's MISP matching_attributes to indicator
// types; a list that names none applies to every type.
func attributeTypes(attrs []string) typeSet {
	if len(attrs) == 0 {
		return nil
	}
	set := typeSet{}
	for _, a := range attrs {
		for _, part := range strings.Split(a, "|") {
			for _, t := range mispTypes(part) {
				set[t] = true
			}
		}
	}
	return set
}

// mispTypes maps a MISP attribute type (or a half of a composite one such
// as ip-dst|port) to indicator types.
func mispTypes(attr string) []ioc.Type { return ioc.FromMISP(attr) }

// unwrapPath drops the "open PATH:" of an *os.PathError, which the caller
// already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ConfiguredSkipper is the skip rules as the configuration sets them: the
// noise, plus the allow-list and the MISP warning lists that setting
// names ("allowlist", "warninglists"), read from disk. Both triage and the
// MCP server build theirs with it.
func ConfiguredSkipper(setting func(key string) (string, error)) (*Skipper, error) {
	s := &Skipper{Noise: true}
	path, err := setting("allowlist")
	if err != nil {
		return nil, err
	}
	if path = expandHome(path); path != "" {
		if s.Allow, err = LoadAllowlist(path); err != nil {
			return nil, err
		}
	}
	dir, err := setting("warninglists")
	if err != nil {
		return nil, err
	}
	if dir = expandHome(dir); dir != "" {
		if s.Warn, err = LoadWarninglists(dir); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// expandHome reads a leading ~/ as the home directory, as a shell would
// have for a flag, since a config file value never went through one.
func expandHome(p string) string {
	p = strings.TrimSpace(p)
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
