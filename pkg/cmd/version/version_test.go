package version

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

func TestNewCmdFillsOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *Options
	t.Setenv("TILOOKUP_CONFIG", filepath.Join(t.TempDir(), "config.yaml"))
	f := &cmdutil.Factory{IO: ios}
	cmd := NewCmd(f, func(_ context.Context, o *Options) error { got = o; return nil })
	cmd.Flags().StringP("output", "o", "", "")
	f.Flags = cmd.Flags()
	cmd.SetArgs([]string{"-o", "ndjson"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.JSON || got.Info == nil || got.IO != ios {
		t.Errorf("options = %+v", got)
	}
	cmd.SetArgs([]string{"extra"})
	if err := cmd.Execute(); err == nil {
		t.Error("version took an argument")
	}
}

func TestRun(t *testing.T) {
	info := func() Info {
		return Info{Version: "1.2.3", Commit: "abc", GoVersion: "go1.25", Platform: "linux/amd64"}
	}
	ios, _, out, _ := iostreams.Test()
	if err := Run(&Options{IO: ios, Info: info}); err != nil {
		t.Fatal(err)
	}
	want := "tilookup 1.2.3\ncommit:   abc\ngo:       go1.25\nplatform: linux/amd64\n"
	if out.String() != want {
		t.Errorf("text:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := Run(&Options{IO: ios, JSON: true, Info: info}); err != nil {
		t.Fatal(err)
	}
	if out.String() != `{"version":"1.2.3","commit":"abc","date":"","go_version":"go1.25","platform":"linux/amd64"}`+"\n" {
		t.Errorf("json: %s", out.String())
	}
}

func TestGetFillsGaps(t *testing.T) {
	info := Get()
	if info.Version == "" || info.GoVersion == "" || info.Platform == "" {
		t.Errorf("Get() = %+v", info)
	}
}
