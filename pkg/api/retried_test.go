package api

import (
	"strconv"
	"testing"
)

func TestRoundUp2(t *testing.T) {
	for x, want := range map[float64]string{1.0 / 120: "0.0084", 1.0 / 30: "0.034", 0.5: "0.5", 2: "2", 1.0 / 3: "0.34", 12.01: "13"} {
		got := roundUp2(x)
		if got != want {
			t.Errorf("roundUp2(%v) = %s, want %s", x, got, want)
		}
		if v, _ := strconv.ParseFloat(got, 64); v < x {
			t.Errorf("roundUp2(%v) = %s is below it", x, got)
		}
	}
}
