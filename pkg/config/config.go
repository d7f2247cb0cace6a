// Package config resolves tilookup's settings. Precedence, highest first:
// flag, environment variable, the selected profile in the config file, the
// file's top level, built-in default (see resolve.go). Viper reads each of
// these scopes; the file is read and written here as a YAML node tree so
// that `config set` keeps the user's comments and order.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/suggest"
)

// Config is the loaded configuration of one process.
type Config struct {
	scopes  scopes
	path    string
	profile string
	doc     *yaml.Node // the file's document node; nil when there is no file
	top     map[string]any
	// pathErr says why there is no config file path (no HOME): reading
	// goes on without a file, writing fails with it.
	pathErr error
}

// Path returns the config file to use: the --config flag, else
// TILOOKUP_CONFIG, else tilookup/config.yaml under the user config dir.
func Path(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if p := os.Getenv("TILOOKUP_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", failure.Wrap(failure.Config, err, "cannot find the user config directory").
			WithHint("set TILOOKUP_CONFIG or pass --config FILE")
	}
	return filepath.Join(dir, "tilookup", "config.yaml"), nil
}

// Open loads the config file named by --config, TILOOKUP_CONFIG or the user
// config dir, layered under the changed flags of fs and the TILOOKUP_*
// environment, without checking values (see Check and Settings). When no
// config dir can be found (no HOME), settings still resolve from flags,
// environment and defaults, so that offline commands run; only a write
// fails. With forEdit, a selected profile that does not exist yet is where
// a value will be written, not an error.
func Open(flagPath string, fs *pflag.FlagSet, forEdit bool) (*Config, error) {
	path, err := Path(flagPath)
	if err != nil {
		c, lerr := load("", fs, forEdit)
		if lerr != nil {
			return nil, lerr
		}
		c.pathErr = err
		return c, nil
	}
	return load(path, fs, forEdit)
}

func load(path string, fs *pflag.FlagSet, newProfileOK bool) (*Config, error) {
	c := &Config{path: path, scopes: newScopes(fs)}
	if err := c.readFile(); err != nil {
		return nil, err
	}
	if err := c.selectProfile(newProfileOK); err != nil {
		return nil, err
	}
	return c, nil
}

// Override forces a setting above every layer for this process (--sandbox
// points the call at the in-process server this way).
func (c *Config) Override(name, value string) {
	c.scopes[scopeOverride].Set(name, value)
}

// Check validates every effective value; see Settings.
func (c *Config) Check() error {
	_, err := c.Settings()
	return err
}

// invalid is the error for a bad value: its advice names where the value
// came from, since `config set` cannot fix a flag or an environment
// variable.
func (c *Config) invalid(name string, err error) *failure.Error {
	src := c.Source(name)
	k, _ := Lookup(name)
	switch {
	case strings.HasPrefix(src, "flag"):
		// A typo on the command line, not a broken setup, unless the key
		// describes the setup.
		kind := failure.Usage
		if k.setup {
			kind = failure.Config
		}
		return failure.New(kind, "%v (from %s)", err, src).WithHint("fix --" + k.Flag)
	case strings.HasPrefix(src, "env"):
		return failure.New(failure.Config, "%v (from %s)", err, src).
			WithHint("fix or unset " + k.Env)
	case strings.HasPrefix(src, "profile"):
		p := "tilookup --profile " + c.profile + " config "
		return failure.New(failure.Config, "%v (from %s in %s)", err, src, c.path).
			WithHint("fix it with `" + p + "set " + name + " VALUE` or `" + p + "unset " + name + "`")
	default:
		return failure.New(failure.Config, "%v (from %s %s)", err, src, c.path).
			WithHint("fix it with `tilookup config set " + name + " VALUE` or `tilookup config unset " + name + "`")
	}
}

// withoutNeeded is the error for key k on while the key it works through
// is not set: set that one first, or turn k off where it was set.
func (c *Config) withoutNeeded(k Key) error {
	n, _ := Lookup(k.needs)
	e := c.invalid(k.Name, fmt.Errorf("%s needs %s: %s", k.Name, n.Name, k.needsWhy))
	e.Hint = "set " + n.Name + " first (--" + n.Flag + ", " + n.Env + " or `" + configCommand(c.profile) + "set " + n.Name + " URL`), or " + e.Hint
	return e
}

func (c *Config) readFile() error {
	if c.path == "" {
		c.top = map[string]any{}
		return nil
	}
	data, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		c.top = map[string]any{}
		return nil
	}
	if err != nil {
		return failure.Wrap(failure.Config, err, "cannot read config file: "+err.Error())
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return failure.New(failure.Config, "config file %s is not valid YAML: %v", c.path, firstLine(err.Error()))
	}
	top := map[string]any{}
	if len(doc.Content) > 0 {
		if err := doc.Content[0].Decode(&top); err != nil {
			return failure.New(failure.Config, "config file %s must be a mapping of keys: %v", c.path, firstLine(err.Error()))
		}
		c.doc = &doc
	}
	if top == nil {
		top = map[string]any{}
	}
	c.top = top
	c.scopes[scopeFile] = fileScope(top)
	if c.profile != "" {
		profiles, _ := top["profiles"].(map[string]any)
		section, _ := profiles[c.profile].(map[string]any)
		c.scopes[scopeProfile] = fileScope(section)
	}
	return nil
}

// selectProfile fills the profile scope with the chosen profile, which
// flags and environment still win over but which wins over the file's top
// level.
func (c *Config) selectProfile(newProfileOK bool) error {
	name := c.Get("profile")
	if name == "" {
		return nil
	}
	profiles, _ := c.top["profiles"].(map[string]any)
	section, ok := profiles[name].(map[string]any)
	if raw, present := profiles[name]; present && raw == nil {
		section, ok = map[string]any{}, true // `staging:` with nothing under it yet
	}
	if !ok && newProfileOK {
		c.profile = name
		return nil
	}
	if !ok {
		known := c.Profiles()
		hint := "define it under profiles: in " + c.path
		if len(known) > 0 {
			hint = "known profiles: " + strings.Join(known, ", ")
		}
		return failure.New(failure.Config, "profile %q not found in %s", name, c.path).WithHint(hint)
	}
	c.profile = name
	c.scopes[scopeProfile] = fileScope(section)
	return nil
}

// Profile returns the selected profile's name, or "".
func (c *Config) Profile() string { return c.profile }

// Profiles lists the profile names defined in the file, sorted.
func (c *Config) Profiles() []string {
	profiles, _ := c.top["profiles"].(map[string]any)
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ConfiguredURLs lists every base_url and events_base_url written in the
// file, at the top level and in every profile, for messages that point to
// the hosts a user has set up.
func (c *Config) ConfiguredURLs() []string {
	var urls []string
	add := func(m map[string]any) {
		for _, k := range []string{"base_url", "events_base_url"} {
			if v, ok := m[k].(string); ok && v != "" {
				urls = append(urls, v)
			}
		}
	}
	add(c.top)
	profiles, _ := c.top["profiles"].(map[string]any)
	for _, name := range c.Profiles() {
		if m, ok := profiles[name].(map[string]any); ok {
			add(m)
		}
	}
	return urls
}

// Set writes key=value into the file: into the selected profile when one is
// selected, else at the top level. The file is created 0600 if needed.
func (c *Config) Set(name, value string) error {
	k, ok := Lookup(name)
	if !ok {
		return UnknownKey(name)
	}
	if err := k.Validate(value); err != nil {
		return failure.New(failure.Usage, "%v", err)
	}
	if err := c.checkNeeds(name, &value); err != nil {
		return err
	}
	path := []string{name}
	if c.profile != "" && name != "profile" {
		path = []string{"profiles", c.profile, name}
	}
	return c.edit(func(root *yaml.Node) bool { setPath(root, path, value); return true })
}

// Unset removes a key from the file (from the selected profile if any).
func (c *Config) Unset(name string) error {
	if err := c.checkNeeds(name, nil); err != nil {
		return err
	}
	path := []string{name}
	if c.profile != "" && name != "profile" {
		path = []string{"profiles", c.profile, name}
	}
	return c.edit(func(root *yaml.Node) bool { return deletePath(root, path) })
}

// checkNeeds refuses a write of name (value nil: unset) that would leave a
// key on in the file without the key it works through (shared_rate without
// cache_url): every command would stop on it. The file is judged alone (a
// flag or a variable is not there on the next run), in every section the
// write reaches: the one written to and, for the top level, each profile,
// which falls back to it.
func (c *Config) checkNeeds(name string, value *string) error {
	for _, k := range Keys {
		if k.needs == "" || (name != k.Name && name != k.needs) {
			continue
		}
		for _, section := range c.reached() {
			if !k.on(c.afterWrite(section, k.Name, name, value)) || strings.TrimSpace(c.afterWrite(section, k.needs, name, value)) != "" {
				continue
			}
			if name == k.Name {
				return failure.New(failure.Usage, "%s needs %s: %s, and the config file sets no %s", k.Name, k.needs, k.needsWhy, k.needs).
					WithHint("set it first: `" + configCommand(c.profile) + "set " + k.needs + " URL`")
			}
			where := "the config file"
			if section != "" {
				where = "profile " + section + " of the config file"
			}
			return failure.New(failure.Usage, "%s is on in %s, and it needs %s: %s", k.Name, where, k.needs, k.needsWhy).
				WithHint("turn it off first: `" + configCommand(section) + "unset " + k.Name + "`")
		}
	}
	return nil
}

// reached are the sections of the file a write reaches: the selected
// profile, or the top level ("") and every profile.
func (c *Config) reached() []string {
	if c.profile != "" {
		return []string{c.profile}
	}
	return append([]string{""}, c.Profiles()...)
}

// afterWrite is key's value in section once name is written (value nil:
// removed) into the selected scope: a profile's own value, else the top
// level's.
func (c *Config) afterWrite(section, key, name string, value *string) string {
	own, ownSet := c.sectionValue(section, key)
	top, _ := c.sectionValue("", key)
	if key == name {
		written := ""
		if value != nil {
			written = *value
		}
		if c.profile == section {
			own, ownSet = written, value != nil
		}
		if c.profile == "" {
			top = written
		}
	}
	if section != "" && ownSet {
		return own
	}
	return top
}

// sectionValue is key's value in one section of the file ("" is the top
// level) and whether that section sets it.
func (c *Config) sectionValue(section, key string) (string, bool) {
	m := c.top
	if section != "" {
		profiles, _ := c.top["profiles"].(map[string]any)
		m, _ = profiles[section].(map[string]any)
	}
	v := fileScope(m)
	return v.GetString(key), v.IsSet(key)
}

// configCommand is how `config` is run to write into a profile ("": the
// top level).
func configCommand(profile string) string {
	if profile != "" {
		return "tilookup --profile " + profile + " config "
	}
	return "tilookup config "
}

// UnknownKey is the error for a key that is not in Keys; "token" gets its
// own explanation, since it is set with `auth login`, never on the command
// line.
func UnknownKey(name string) error {
	if name == "token" {
		return failure.New(failure.Usage, "the token is not a config value").
			WithHint("use `tilookup auth login`, or set TILOOKUP_TOKEN")
	}
	if near := suggest.Closest(name, KeyNames(), 2); len(near) > 0 {
		for i, n := range near {
			near[i] = strconv.Quote(n)
		}
		return failure.New(failure.Usage, "unknown config key %q. Did you mean %s?", name, strings.Join(near, " or "))
	}
	return failure.New(failure.Usage, "unknown config key %q", name).
		WithHint("valid keys: " + strings.Join(KeyNames(), ", "))
}

// edit applies fn to the file's root mapping and writes the file back if
// fn changed it. The read-modify-write holds the config lock and starts
// from the file as it is now, not as this process loaded it: concurrent
// writers (20 `config set`, a logout racing them) then lose nothing.
func (c *Config) edit(fn func(root *yaml.Node) bool) error {
	if c.pathErr != nil {
		return c.pathErr
	}
	release, err := lock(c.path)
	if err != nil {
		return err
	}
	defer release()
	if err := c.readFile(); err != nil {
		return err
	}
	if c.doc == nil {
		c.doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := c.doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return failure.New(failure.Config, "config file %s is not a mapping of keys", c.path)
	}
	if !fn(root) {
		return nil
	}
	data, err := yaml.Marshal(c.doc)
	if err != nil {
		return failure.Wrap(failure.Config, err, "cannot encode the config file")
	}
	if err := WriteFile(c.path, data); err != nil {
		return err
	}
	return c.readFile()
}

// WriteFile replaces path with data atomically, mode 0600 (it may hold a
// token), creating the directory 0700.
func WriteFile(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // replace the file a symlink points at, not the link
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return failure.Wrap(failure.Config, err, "cannot create "+dir+": "+err.Error())
	}
	tmp, err := os.CreateTemp(dir, ".config-*.yaml")
	if err != nil {
		return failure.Wrap(failure.Config, err, "cannot write the config file: "+err.Error())
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return failure.Wrap(failure.Config, err, "cannot write the config file: "+err.Error())
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return failure.Wrap(failure.Config, err, "cannot write the config file: "+err.Error())
	}
	if err := tmp.Close(); err != nil {
		return failure.Wrap(failure.Config, err, "cannot write the config file: "+err.Error())
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return failure.Wrap(failure.Config, err, "cannot write the config file: "+err.Error())
	}
	return nil
}

func setPath(m *yaml.Node, path []string, value string) {
	for i, key := range path {
		child := lookupNode(m, key)
		last := i == len(path)-1
		if child == nil {
			child = &yaml.Node{Kind: yaml.MappingNode}
			if last {
				child = &yaml.Node{Kind: yaml.ScalarNode}
			}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, child)
		}
		if last {
			child.Kind, child.Tag, child.Value, child.Content = yaml.ScalarNode, "", value, nil
			child.Style = 0
			if value == "" {
				child.Style = yaml.DoubleQuotedStyle
			}
			return
		}
		if child.Kind != yaml.MappingNode {
			child.Kind, child.Tag, child.Value, child.Content = yaml.MappingNode, "", "", nil
		}
		m = child
	}
}

// deletePath removes the key at path and reports whether it was there.
func deletePath(m *yaml.Node, path []string) bool {
	for i, key := range path {
		if m.Kind != yaml.MappingNode {
			return false
		}
		j := lookupIndex(m, key)
		if j < 0 {
			return false // nothing there; in particular, never fall back a level
		}
		if i == len(path)-1 {
			m.Content = append(m.Content[:j], m.Content[j+2:]...)
			return true
		}
		m = m.Content[j+1]
	}
	return false
}

// lookupIndex returns the index of key's node in mapping m, or -1.
func lookupIndex(m *yaml.Node, key string) int {
	for j := 0; j+1 < len(m.Content); j += 2 {
		if m.Content[j].Value == key {
			return j
		}
	}
	return -1
}

func lookupNode(m *yaml.Node, key string) *yaml.Node {
	for j := 0; j+1 < len(m.Content); j += 2 {
		if m.Content[j].Value == key {
			return m.Content[j+1]
		}
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

type yamlNode = yaml.Node
