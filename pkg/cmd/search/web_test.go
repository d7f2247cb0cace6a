package search

import (
	"errors"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/browser"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

func TestOpenWeb(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	ios.SetTTY(false, true, true)
	var launched []string
	b := &browser.Browser{
		Env:    func(string) string { return "" },
		Launch: func(name string, args ...string) error { launched = append(launched, args...); return nil },
		Out:    out,
		GOOS:   "linux",
	}
	resp := &api.SearchResponse{Results: []api.Result{{Resource: "r", DetailURL: "https://ti.example/r?q=1"}}}
	if err := openWeb(&cmdutil.Factory{IO: ios}, b, resp, ""); err != nil {
		t.Fatal(err)
	}
	if strings.Join(launched, " ") != "https://ti.example/r?q=1" || !strings.Contains(errOut.String(), "Opening https://ti.example/r?q=1") {
		t.Errorf("launched %v, stderr %q", launched, errOut)
	}

	b.Launch = func(string, ...string) error { return errors.New("no browser") }
	errOut.Reset()
	if err := openWeb(&cmdutil.Factory{IO: ios}, b, resp, ""); err != nil || out.String() != "https://ti.example/r?q=1\n" || errOut.Len() != 0 {
		t.Errorf("err %v, stdout %q, stderr %q", err, out, errOut)
	}
	if err := openWeb(&cmdutil.Factory{IO: ios}, b, &api.SearchResponse{}, ""); failure.KindOf(err) != failure.NoMatch {
		t.Errorf("no results: %v", err)
	}
}
