package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedFilesAreCurrent regenerates into a temporary tree and
// compares it, file by file and byte by byte, with what is committed, so that
// a changed flag or help text cannot ship with stale completions or docs.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	fresh := t.TempDir()
	if err := generate(fresh); err != nil {
		t.Fatal(err)
	}
	const advice = "run `go generate ./...` and commit the result"
	for _, o := range outputs {
		want := listFiles(t, filepath.Join(fresh, o.dir))
		got := listFiles(t, filepath.Join("..", "..", o.dir))
		for name := range want {
			if _, ok := got[name]; !ok {
				t.Errorf("%s is missing: %s", filepath.Join(o.dir, name), advice)
			}
		}
		for name, data := range got {
			w, ok := want[name]
			switch {
			case !ok:
				t.Errorf("%s is no longer generated (a removed command?): %s", filepath.Join(o.dir, name), advice)
			case !bytes.Equal(data, w):
				t.Errorf("%s is stale: %s", filepath.Join(o.dir, name), advice)
			}
		}
	}
}

// TestGenerateIsDeterministic guards the staleness test itself: two runs
// must agree, or it would fail at random.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	t.Setenv("SOURCE_DATE_EPOCH", "86400")
	if err := generate(a); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "")
	if err := generate(b); err != nil {
		t.Fatal(err)
	}
	for _, o := range outputs {
		fa, fb := listFiles(t, filepath.Join(a, o.dir)), listFiles(t, filepath.Join(b, o.dir))
		if len(fa) == 0 || len(fa) != len(fb) {
			t.Fatalf("%s: %d files, then %d", o.dir, len(fa), len(fb))
		}
		for name, data := range fa {
			if !bytes.Equal(data, fb[name]) {
				t.Errorf("%s differs between two runs", filepath.Join(o.dir, name))
			}
		}
	}
}

func TestManPagesAndScripts(t *testing.T) {
	dir := t.TempDir()
	if err := generate(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"completions/tilookup.bash", "completions/tilookup.zsh", "completions/tilookup.fish", "completions/tilookup.ps1",
		"docs/man/tilookup.1", "docs/man/tilookup-search.1", "docs/man/tilookup-completion-install.1",
		"docs/md/tilookup.md", "docs/md/tilookup_search.md",
	} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("tilookup")) {
			t.Errorf("%s does not mention tilookup", name)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "docs/man/tilookup.1"))
	if !bytes.Contains(page, []byte(`.TH "TILOOKUP" "1" "" "tilookup" "tilookup manual"`)) {
		t.Errorf("tilookup.1 has an unexpected .TH line:\n%s", firstLines(page, 3))
	}
	if bytes.Contains(page, []byte("Auto generated")) {
		t.Error("tilookup.1 carries cobra's dated footer")
	}
	for _, name := range []string{"tilookup.1", "tilookup-search.1", "tilookup-detect.1"} {
		page, _ := os.ReadFile(filepath.Join(dir, "docs/man", name))
		exit := bytes.Index(page, []byte("\n.SH EXIT STATUS\n"))
		env := bytes.Index(page, []byte("\n.SH ENVIRONMENT\n"))
		seeAlso := bytes.Index(page, []byte("\n.SH SEE ALSO\n"))
		if exit < 0 || env < exit || seeAlso < env {
			t.Errorf("%s: want EXIT STATUS, then ENVIRONMENT, before SEE ALSO (at %d, %d, %d)", name, exit, env, seeAlso)
		}
		for _, want := range []string{"\\fB130\\fP", "\\fBTILOOKUP_TOKEN\\fP", "\\fBTILOOKUP_MAX_RESPONSE_SIZE\\fP", "\\fBNO_COLOR\\fP", "with \\-e a value"} {
			if !bytes.Contains(page, []byte(want)) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}

func TestRoff(t *testing.T) {
	for in, want := range map[string]string{
		"a -e b":       `a \-e b`,
		`C:\x`:         `C:\ex`,
		".starts":      `\&.starts`,
		"two\n  lines": "two lines",
	} {
		if got := roff(in); got != want {
			t.Errorf("roff(%q) = %q, want %q", in, got, want)
		}
	}
}

func listFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = data
	}
	return files
}

func firstLines(b []byte, n int) string {
	lines := bytes.SplitN(b, []byte("\n"), n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
