package report

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoConfigInTheDeps: report is types shared by triage and the
// exports; it must not compile the configuration layer (viper and its
// dozens of packages) through pkg/api.
func TestNoConfigInTheDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skip("go list is not available:", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "viper") || strings.HasSuffix(dep, "/pkg/config") {
			t.Errorf("pkg/report depends on %s", dep)
		}
	}
}
