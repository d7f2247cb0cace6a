package config

import (
	"testing"

	"github.com/spf13/pflag"
)

// Every key resolves through the same scopes in the same order, and Get
// and Source agree on which one won: the table of keys is the fixture.
// Each round takes the highest scope away.
func TestEveryKeyResolvesInOrder(t *testing.T) {
	for _, k := range Keys {
		if k.Name == "profile" {
			continue // it picks the profile scope; TestPrecedence covers it
		}
		t.Run(k.Name, func(t *testing.T) {
			clearEnv(t)
			p := writeFile(t, k.Name+": in-file\nprofiles:\n  p:\n    "+k.Name+": in-profile\n")
			type scope struct {
				args   []string
				env    bool
				value  string
				source string
			}
			var rounds []scope
			if k.Flag != "" {
				rounds = append(rounds, scope{[]string{"--" + k.Flag, "on-flag", "--profile", "p"}, k.Env != "", "on-flag", "flag --" + k.Flag})
			}
			if k.Env != "" {
				rounds = append(rounds, scope{[]string{"--profile", "p"}, true, "in-env", "env " + k.Env})
			}
			rounds = append(rounds,
				scope{[]string{"--profile", "p"}, false, "in-profile", "profile p"},
				scope{nil, false, "in-file", "file"})
			for _, r := range rounds {
				clearEnv(t)
				if r.env {
					t.Setenv(k.Env, "in-env")
				}
				c, err := Open(p, everyFlag(t, r.args), false)
				if err != nil {
					t.Fatal(err)
				}
				if got, src := c.Get(k.Name), c.Source(k.Name); got != r.value || src != r.source {
					t.Errorf("%v env=%v: %q from %q, want %q from %q", r.args, r.env, got, src, r.value, r.source)
				}
			}
			c, err := Open(writeFile(t, ""), everyFlag(t, nil), false)
			if err != nil {
				t.Fatal(err)
			}
			want, source := k.Default, "default"
			if k.Default == "" {
				source = ""
			}
			if k.Name == "events_base_url" {
				source = "" // no default of its own: base_url's, unset here
			}
			if got, src := c.Get(k.Name), c.Source(k.Name); got != want || src != source {
				t.Errorf("nothing set: %q from %q, want %q from %q", got, src, want, source)
			}
		})
	}
}

// A key written with no value (`timeout:`, YAML's null) sets nothing: the
// value and its source both come from the scope below.
func TestNullInTheFileSetsNothing(t *testing.T) {
	clearEnv(t)
	p := writeFile(t, "timeout: 10s\nretries:\nprofiles:\n  p:\n    timeout:\n")
	c, err := Open(p, everyFlag(t, []string{"--profile", "p"}), false)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][2]string{"timeout": {"10s", "file"}, "retries": {"2", "default"}} {
		if got, src := c.Get(key), c.Source(key); got != want[0] || src != want[1] {
			t.Errorf("%s = %q from %q, want %q from %q", key, got, src, want[0], want[1])
		}
	}
}

// everyFlag is a flag set with every key's flag, parsed from args.
func everyFlag(t *testing.T, args []string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	for _, k := range Keys {
		if k.Flag != "" {
			fs.String(k.Flag, "", "")
		}
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}
