package config

import "sort"

// The opt-in plaintext token store (`auth login --insecure-storage`): tokens
// live under `tokens:` keyed by host. Hosts contain dots, which viper would
// split into nested keys, so this reads the raw mapping instead.

// Token returns the token stored in the file for host.
func (c *Config) Token(host string) (string, bool) {
	tokens, _ := c.top["tokens"].(map[string]any)
	t, ok := tokens[host].(string)
	return t, ok && t != ""
}

// SetToken stores a token for host in the file (mode 0600).
func (c *Config) SetToken(host, token string) error {
	return c.edit(func(root *yamlNode) bool { setPath(root, []string{"tokens", host}, token); return true })
}

// DeleteToken removes host's token from the file. It looks at the file as
// it is now, under the lock, so a token written by another process since
// this one loaded the file is removed too.
func (c *Config) DeleteToken(host string) error {
	return c.edit(func(root *yamlNode) bool { return deletePath(root, []string{"tokens", host}) })
}

// Hosts lists, sorted, the hosts with a token in the file.
func (c *Config) Hosts() []string {
	tokens, _ := c.top["tokens"].(map[string]any)
	hosts := make([]string, 0, len(tokens))
	for h := range tokens {
		if t, ok := tokens[h].(string); ok && t != "" {
			hosts = append(hosts, h)
		}
	}
	sort.Strings(hosts)
	return hosts
}

// Path is the file's path, named in the warning about plaintext storage.
func (c *Config) Path() string { return c.path }

// Writable reports why the file cannot be written (no config directory),
// or nil.
func (c *Config) Writable() error { return c.pathErr }
