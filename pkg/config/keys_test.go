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
