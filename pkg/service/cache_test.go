package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/httpmock"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// cachedFactory is a Factory over an empty config file, with --debug on,
// and a client of a stub service.
func cachedFactory(t *testing.T) (*online.Factory, *api.Client, *httpmock.Stub) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	path := filepath.Join(t.TempDir(), "config.yaml")
	debug := true
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios, ConfigFlag: &path, DebugFlag: &debug}}
	Attach(f)
	reg := &httpmock.Registry{}
	stub := reg.Register("a", httpmock.Any(), httpmock.JSON(`{"query":"a.example","results":[{"resource":"r"}]}`))
	c, err := api.New(api.Options{BaseURL: "https://ti.test", Token: "tok", Transport: reg}, false)
	if err != nil {
		t.Fatal(err)
	}
	return f, c, stub
}

func stderr(f *online.Factory) string { return f.IO.ErrOut.(interface{ String() string }).String() }

func searchTwice(t *testing.T, s lookup.Searcher) {
	t.Helper()
	for range 2 {
		if _, err := s.Search(context.Background(), "a.example"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCachedIsOffByDefault(t *testing.T) {
	t.Setenv("TILOOKUP_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	f, c, stub := cachedFactory(t)
	searchTwice(t, f.Cached(lookup.Client(c, 0, true), c, 0, true, false))
	if stub.Calls() != 2 {
		t.Fatalf("%d requests with the cache off, want 2", stub.Calls())
	}
}

func TestCachedOnFromTheEnvironment(t *testing.T) {
	t.Setenv("TILOOKUP_CACHE", "1h")
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	f, c, stub := cachedFactory(t)
	searchTwice(t, f.Cached(lookup.Client(c, 0, true), c, 0, true, false))
	if stub.Calls() != 1 {
		t.Fatalf("%d requests with the cache on, want 1", stub.Calls())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "tilookup", "answers", "*", "*")); len(m) != 1 {
		t.Fatalf("entries under XDG_CACHE_HOME: %v", m)
	}
}

func TestCachedWithoutACacheDirectoryWarns(t *testing.T) {
	t.Setenv("TILOOKUP_CACHE", "1h")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("LocalAppData", "")
	f, c, stub := cachedFactory(t)
	searchTwice(t, f.Cached(lookup.Client(c, 0, true), c, 0, true, false))
	errOut := stderr(f)
	if stub.Calls() != 2 || !strings.Contains(errOut, "warning: answers are not cached") {
		t.Fatalf("%d requests; stderr:\n%s", stub.Calls(), errOut)
	}
}

func TestCachedIsOffWithTheSandbox(t *testing.T) {
	t.Setenv("TILOOKUP_CACHE", "24h")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	f, c, stub := cachedFactory(t)
	f.Override("cache", "0") // what StartSandbox does
	searchTwice(t, f.Cached(lookup.Client(c, 0, true), c, 0, true, false))
	errOut := stderr(f)
	if stub.Calls() != 2 || !strings.Contains(errOut, "[debug] cache: off with --sandbox") {
		t.Fatalf("%d requests; stderr:\n%s", stub.Calls(), errOut)
	}
}
