package sandbox

import (
	"github.com/tilookup/tilookup/pkg/ioc"

	"encoding/json"
	"net/netip"
	"regexp"
	"strings"
	"testing"
)

func mustDataset(t *testing.T) *dataset {
	t.Helper()
	ds, err := loadDataset()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

var reservedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("2001:db8::/32"),
}

func reservedIP(a netip.Addr) bool {
	for _, p := range reservedPrefixes {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

func reservedName(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, zone := range []string{"example.com", "example.net", "example.org", "test", "example"} {
		if host == zone || strings.HasSuffix(host, "."+zone) {
			return true
		}
	}
	return false
}

// hostOf returns a URL's host without userinfo, port or brackets.
func hostOf(u string) string {
	_, rest, _ := strings.Cut(u, "://")
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		rest = rest[at+1:]
	}
	if strings.HasPrefix(rest, "[") {
		inner, _, _ := strings.Cut(rest[1:], "]")
		return inner
	}
	host, _, _ := strings.Cut(rest, ":")
	return host
}

// walkStrings calls fn for every string in v (a decoded JSON value) with
// the object key it sits under.
func walkStrings(v any, key string, fn func(key, s string)) {
	switch x := v.(type) {
	case string:
		fn(key, x)
	case []any:
		for _, e := range x {
			walkStrings(e, key, fn)
		}
	case map[string]any:
		for k, e := range x {
			walkStrings(e, k, fn)
		}
	}
}

var ipv4InText = regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b`)

// checkReserved fails for any address or name outside the documentation
// ranges, wherever in the data it appears.
func checkReserved(t *testing.T, where, key, s string) {
	t.Helper()
	for _, m := range ipv4InText.FindAllString(s, -1) {
		if a, err := netip.ParseAddr(m); err == nil && !reservedIP(a) {
			t.Errorf("%s.%s: %s is not a documentation address", where, key, m)
		}
	}
	for _, word := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '[' || r == ']' || r == '/' || r == ',' }) {
		if a, err := netip.ParseAddr(word); err == nil && !reservedIP(a) {
			t.Errorf("%s.%s: %s is not a documentation address", where, key, word)
		}
	}
	switch detectType(s) {
	case string(ioc.URL):
		h := hostOf(s)
		if a, err := netip.ParseAddr(h); err == nil {
			if !reservedIP(a) {
				t.Errorf("%s.%s: URL host %s is not a documentation address", where, key, h)
			}
		} else if !reservedName(h) {
			t.Errorf("%s.%s: URL host %s is not a reserved name", where, key, h)
		}
	case string(ioc.Email):
		if _, d, _ := strings.Cut(s, "@"); !reservedName(d) {
			t.Errorf("%s.%s: e-mail domain %s is not a reserved name", where, key, d)
		}
	case string(ioc.Domain):
		// File names look like domains (photo_1.scr); they name no host.
		if key != "file_name" && !reservedName(s) {
			t.Errorf("%s.%s: %s is not a reserved name", where, key, s)
		}
	}
	if strings.Contains(s, "@") && detectType(s) != string(ioc.Email) {
		at := s[strings.LastIndexByte(s, '@')+1:]
		at = strings.TrimRight(at, ">")
		if ioc.Detect(at) == ioc.Domain && !reservedName(at) {
			t.Errorf("%s.%s: %s is not a reserved name", where, key, at)
		}
	}
}

func TestDataSetInvariants(t *testing.T) {
	ds := mustDataset(t)
	groups := map[string]bool{}
	ids := map[string]bool{}
	types := map[string]int{}
	total := 0
	bigInt := false
	for _, res := range ds.resources {
		if res.ID == "" || res.Label == "" || res.Group == "" || len(res.Columns) == 0 {
			t.Errorf("resource %+v lacks an id, label, group or columns", res.ID)
		}
		if ids[res.ID] {
			t.Errorf("resource id %s twice", res.ID)
		}
		ids[res.ID] = true
		groups[res.Group] = true
		total += len(res.Records)
		for i, raw := range res.Records {
			if strings.Contains(string(raw), "9007199254740993") {
				bigInt = true
			}
			var rec map[string]any
			if err := json.Unmarshal(raw, &rec); err != nil {
				t.Fatalf("%s[%d]: %v", res.ID, i, err)
			}
			indexed := 0
			for _, col := range res.Columns {
				if v, ok := rec[col].(string); ok {
					types[detectType(v)]++
					indexed++
				}
			}
			if indexed == 0 {
				t.Errorf("%s[%d] has no indexed value: unsearchable", res.ID, i)
			}
			walkStrings(rec, "", func(key, s string) { checkReserved(t, res.ID, key, s) })
		}
	}
	var events any
	if err := json.Unmarshal(ds.eventsMe, &events); err != nil {
		t.Fatal(err)
	}
	walkStrings(events, "", func(key, s string) { checkReserved(t, "events_me", key, s) })

	if len(ds.resources) < 6 || len(groups) < 3 || total < 300 {
		t.Errorf("%d resources in %d groups with %d records; want at least 6, 3 and 300", len(ds.resources), len(groups), total)
	}
	for _, typ := range []string{string(ioc.MD5), string(ioc.SHA1), string(ioc.SHA256), string(ioc.SHA512), string(ioc.IPv4), string(ioc.IPv6), string(ioc.Domain), string(ioc.URL), string(ioc.CVE), string(ioc.Email)} {
		if types[typ] == 0 {
			t.Errorf("no indexed value of type %s", typ)
		}
	}
	if types[typeUnknown] != 0 || len(ds.unindexed) != 0 {
		t.Errorf("%d indexed values of unknown type: %v", types[typeUnknown], ds.unindexed)
	}
	if !bigInt {
		t.Error("no record holds 9007199254740993")
	}
}

// Some values must hit several resources, across groups, for the demo to
// show what an exact search across everything is.
func TestDataSetSharedValues(t *testing.T) {
	ds := mustDataset(t)
	for _, tc := range []struct {
		q                    string
		minResources, groups int
	}{
		{eicarMD5, 3, 2},
		{eicarSHA256, 3, 2},
		{hotIPv4, 3, 2},
		{hotIPv6, 3, 2},
		{hotDomain, 3, 2},
		{hotURL, 2, 2},
		{hotEmail, 3, 2},
		{"CVE-2021-44228", 3, 2},
		{"CVE-2023-4966", 3, 2},
		{"CVE-2017-0144", 3, 2},
	} {
		matches := ds.lookup(normalize(tc.q, detectType(tc.q)))
		groups := map[string]bool{}
		for _, m := range matches {
			groups[ds.resources[m.res].Group] = true
		}
		if len(matches) < tc.minResources || len(groups) < tc.groups {
			t.Errorf("%s: %d resources in %d groups; want %d in %d", tc.q, len(matches), len(groups), tc.minResources, tc.groups)
		}
	}
}

// A fresh parse must work from the embedded bytes alone: loadDataset's Once
// only caches it, and nothing may depend on package init having run.
func TestParseEmbeddedData(t *testing.T) {
	ds, err := parseDataset(demoJSON)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.index) == 0 {
		t.Fatal("empty index")
	}
}

func TestParseDatasetRejectsBadData(t *testing.T) {
	for name, raw := range map[string]string{
		"not json":        `{`,
		"non-string cell": `{"resources":[{"id":"r","label":"R","group":"g","columns":["v"],"records":[{"v":3}]}],"events_me":{}}`,
	} {
		if _, err := parseDataset([]byte(raw)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ds, err := parseDataset([]byte(`{"resources":[{"id":"r","label":"R","group":"g","columns":["v"],"records":[{"v":"no indicator"},{"v":"ok.example"}]}],"events_me":{}}`))
	if err != nil || len(ds.unindexed) != 1 || len(ds.index) != 1 {
		t.Errorf("one unsearchable value must be skipped and reported, not fatal: %v, %v", err, ds)
	}
}
