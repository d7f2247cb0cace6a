package config

import (
	"strings"
	"testing"
)

func TestUnknownKeySuggestsTheClosest(t *testing.T) {
	for typed, want := range map[string]string{
		"colour":   `unknown config key "colour". Did you mean "color"?`,
		"base-url": `unknown config key "base-url". Did you mean "base_url"?`,
		"zzzzzzz":  `unknown config key "zzzzzzz"; valid keys: base_url`,
	} {
		if got := UnknownKey(typed).Error(); !strings.HasPrefix(got, want) {
			t.Errorf("UnknownKey(%q) = %q, want it to start %q", typed, got, want)
		}
	}
}

func TestBaseURLRefusesWhatWouldFailLater(t *testing.T) {
	k, _ := Lookup("base_url")
	for value, want := range map[string]string{
		"https://ti.example.com":                         "",
		"https://gw.example/ti":                          "",
		"http://127.0.0.1:8080":                          "",
		"https://gw.example/api":                         "", // a prefix of its own may end in /api
		"ti.example.com":                                 "want an http:// or https:// URL",
		"https://ti.example.com/api/ti/resources/search": "tilookup adds /api/ti/resources/search itself: give the URL before it, https://ti.example.com",
		"https://gw.example/ti/api/ti/resources/search/": "give the URL before it, https://gw.example/ti",
		"https://ti.example.com/api/events/me":           "tilookup adds /api/events/me itself",
		"https://ti.example.com/search?q=1":              "no query or fragment",
		"https://ti.example.com/#top":                    "no query or fragment",
	} {
		err := k.Validate(value)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", value, err, want)
		}
	}
}
