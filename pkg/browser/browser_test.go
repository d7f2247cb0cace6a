package browser

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

type call struct {
	name string
	args []string
}

// fake records each launch and succeeds for the programs in ok.
func fake(ok ...string) (*Browser, *[]call, *bytes.Buffer) {
	var calls []call
	var out bytes.Buffer
	b := &Browser{
		Env: func(string) string { return "" },
		Launch: func(name string, args ...string) error {
			calls = append(calls, call{name, args})
			for _, o := range ok {
				if o == name {
					return nil
				}
			}
			return errors.New("not found")
		},
		Out:  &out,
		GOOS: "linux",
	}
	return b, &calls, &out
}

const page = "https://ti.example/r/x?q=a&b=c"

func TestOpenPlatformDefault(t *testing.T) {
	b, calls, out := fake("xdg-open")
	opened, err := b.Open(page)
	if err != nil || !opened || out.Len() != 0 {
		t.Fatalf("opened=%v err=%v out=%q", opened, err, out)
	}
	want := []call{{"xdg-open", []string{page}}}
	if !reflect.DeepEqual(*calls, want) {
		t.Errorf("calls = %v, want %v", *calls, want)
	}
}

func TestOpenHonoursBROWSER(t *testing.T) {
	b, calls, _ := fake("firefox")
	b.Env = func(k string) string {
		if k == "BROWSER" {
			return "nonexistent --flag:firefox --new-tab %s"
		}
		return ""
	}
	if opened, err := b.Open(page); !opened || err != nil {
		t.Fatalf("opened=%v err=%v", opened, err)
	}
	want := []call{{"nonexistent", []string{"--flag", page}}, {"firefox", []string{"--new-tab", page}}}
	if !reflect.DeepEqual(*calls, want) {
		t.Errorf("calls = %v, want %v", *calls, want)
	}
}

func TestOpenPrintsWhenNoBrowser(t *testing.T) {
	b, _, out := fake()
	opened, err := b.Open(page)
	if err != nil || opened {
		t.Fatalf("opened=%v err=%v", opened, err)
	}
	if out.String() != page+"\n" {
		t.Errorf("printed %q", out)
	}
}

func TestOpenRefusesMalformed(t *testing.T) {
	b, calls, _ := fake("xdg-open")
	for _, u := range []string{"-oProxyCommand=x", "https://a\nb"} {
		if _, err := b.Open(u); err == nil {
			t.Errorf("Open(%q) accepted", u)
		}
	}
	if len(*calls) != 0 {
		t.Errorf("launched %v", *calls)
	}
}

func TestPlatforms(t *testing.T) {
	for goos, want := range map[string]string{"darwin": "open", "windows": "rundll32", "linux": "xdg-open"} {
		b, calls, _ := fake(want)
		b.GOOS = goos
		if opened, _ := b.Open(page); !opened || (*calls)[0].name != want {
			t.Errorf("%s: calls %v", goos, *calls)
		}
	}
}
