package iostreams

import "testing"

func TestColorEnabled(t *testing.T) {
	tests := []struct {
		mode            string
		noColor, tty    bool
		clicolor, force string
		want            bool
	}{
		{"auto", false, true, "", "", true},
		{"auto", false, false, "", "", false},
		{"auto", true, true, "", "", false},
		{"auto", false, true, "0", "", false},
		{"auto", false, true, "1", "", true},
		{"auto", false, false, "", "1", true},
		{"auto", false, false, "0", "1", true},
		{"auto", false, false, "", "0", false},
		{"auto", true, false, "", "1", false},
		{"always", true, false, "0", "", true},
		{"never", false, true, "", "1", false},
	}
	for _, tt := range tests {
		s, _, _, _ := Test()
		s.SetTTY(false, tt.tty, false)
		s.SetColorMode(tt.mode)
		s.noColorEnv = tt.noColor
		s.colorEnv = colorFromEnv(tt.clicolor, tt.force)
		if got := s.ColorEnabled(); got != tt.want {
			t.Errorf("%+v: ColorEnabled() = %v", tt, got)
		}
	}
}
