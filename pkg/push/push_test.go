package push

import "testing"

func TestValidIDs(t *testing.T) {
	for s, want := range map[string]bool{
		"5e0c1c2e-6d1a-4f55-9a55-111111111111":  true,
		"5E0C1C2E-6D1A-4F55-9A55-111111111111":  true,
		"5e0c1c2e-6d1a-4f55-9a55-11111111111":   false,
		"5e0c1c2e-6d1a-4f55-9a55-11111111111g":  false,
		"5e0c1c2e6d1a-4f55-9a55-1111111111111":  false,
		"5e0c1c2e-6d1a-4f55-9a55-111111111111 ": false,
	} {
		if validUUID(s) != want {
			t.Errorf("validUUID(%q) = %v", s, !want)
		}
	}
	for s, want := range map[string]bool{
		"indicator--6ae6783f-4fbd-491b-aeb8-8b73a48ed247":        true,
		"x-custom-thing--6ae6783f-4fbd-491b-aeb8-8b73a48ed247":   true,
		"Indicator--6ae6783f-4fbd-491b-aeb8-8b73a48ed247":        false,
		"--6ae6783f-4fbd-491b-aeb8-8b73a48ed247":                 false,
		"-x--6ae6783f-4fbd-491b-aeb8-8b73a48ed247":               false,
		"indicator-6ae6783f-4fbd-491b-aeb8-8b73a48ed247":         false,
		"indicator--6ae6783f-4fbd-491b-aeb8-8b73a48ed247--extra": false,
	} {
		if validSTIXID(s) != want {
			t.Errorf("validSTIXID(%q) = %v", s, !want)
		}
	}
}
