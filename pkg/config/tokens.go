package config

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
	return c.edit(func(root *yamlNode) { setPath(root, []string{"tokens", host}, token) })
}

// DeleteToken removes host's token from the file.
func (c *Config) DeleteToken(host string) error {
	if _, ok := c.Token(host); !ok {
		return nil
	}
	return c.edit(func(root *yamlNode) { deletePath(root, []string{"tokens", host}) })
}

// Hosts lists the hosts with a token in the file (credentials.HostLister).
func (c *Config) Hosts() []string {
	tokens, _ := c.top["tokens"].(map[string]any)
	hosts := make([]string, 0, len(tokens))
	for h := range tokens {
		hosts = append(hosts, h)
	}
	return hosts
}

// Path is the file's path, named in the warning about plaintext storage.
func (c *Config) Path() string { return c.path }
