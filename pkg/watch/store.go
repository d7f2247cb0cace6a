package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/statefile"
)

// MaxStateSize bounds what is read of one state file: some 300 bytes a
// value, so a million values, and a file that is not ours (a link to
// /dev/zero, a huge file) never fills the memory.
const MaxStateSize = 512 << 20

// LockTimeout bounds the wait for another run of the same NAME. A run of
// 100,000 values takes minutes: a cron job that finds the previous one
// still going had better fail and say so than pile up behind it.
var LockTimeout = 30 * time.Second

// DefaultDir is where every watch list lives: $XDG_STATE_HOME/tilookup/watch,
// else ~/.local/state/tilookup/watch (the XDG default, on every platform:
// the state is not a cache, and must not be where cleaners look).
func DefaultDir(getenv func(string) string) (string, error) {
	base := getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", failure.New(failure.Config, "no place for the watch state: neither XDG_STATE_HOME nor HOME is set")
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "tilookup", "watch"), nil
}

// ScopeDir is the directory of one profile and base URL under root: a
// readable profile name and a short hash of the URL, so that the lists
// kept against staging never compare with production's answers.
func ScopeDir(root, profile, baseURL string) string {
	if profile == "" {
		profile = "default"
	}
	if baseURL == "" {
		return filepath.Join(root, safePart(profile))
	}
	sum := sha256.Sum256([]byte(baseURL))
	return filepath.Join(root, safePart(profile)+"-"+hex.EncodeToString(sum[:4]))
}

// ScopeURL is baseURL as the scope of a watch list: without its user
// and password, its query and its fragment. The state is no place for a
// secret, and a scope that held one would change (and orphan every list)
// each time the secret is rotated. A URL with none of them is returned
// as it is, byte for byte, so that its lists keep their directory.
func ScopeURL(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		// Not a URL a run can use (the client refuses it first), so no
		// list was ever kept against it: nothing of it is kept either.
		return "invalid-base-url"
	}
	if u.User == nil && u.RawQuery == "" && !u.ForceQuery && u.Fragment == "" {
		return baseURL
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

func safePart(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// Store is the watch lists of one scope.
type Store struct {
	Root string // DefaultDir
	Dir  string // ScopeDir under Root
	// Legacy is where this scope's lists were kept before the scope left
	// the base URL's secrets out (ScopeURL), "" when it had none.
	Legacy string
}

// NewStore is the store of profile and baseURL under root: its directory
// is named for the base URL without its secrets.
func NewStore(root, profile, baseURL string) Store {
	s := Store{Root: root, Dir: ScopeDir(root, profile, ScopeURL(baseURL))}
	if old := ScopeDir(root, profile, baseURL); old != s.Dir {
		s.Legacy = old
	}
	return s
}

// Migrate moves the lists of s.Legacy into s.Dir, each under the locks of
// both its old and its new path, and writes them with the base URL
// without its secrets: the old key still finds its lists, once, and a
// password rotated afterwards orphans nothing. A list already in s.Dir
// is left where it is.
func (s Store) Migrate() error {
	if s.Legacy == "" {
		return nil
	}
	ents, err := os.ReadDir(s.Legacy)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return failure.Wrap(failure.Config, err, "cannot read "+s.Legacy+": "+err.Error())
	}
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || CheckName(name) != nil {
			continue
		}
		if err := s.adopt(name); err != nil {
			return err
		}
	}
	return nil
}

// adopt moves NAME from s.Legacy to s.Dir.
func (s Store) adopt(name string) error {
	if err := s.prepare(); err != nil {
		return err
	}
	old := Store{Root: s.Root, Dir: s.Legacy}
	if err := statefile.CheckDir(old.Dir); err != nil {
		return err
	}
	release, err := statefile.Lock(s.Path(name), LockTimeout, "the watch list "+name)
	if err != nil {
		return err
	}
	defer release()
	releaseOld, err := statefile.Lock(old.Path(name), LockTimeout, "the watch list "+name)
	if err != nil {
		return err
	}
	defer releaseOld()
	if _, err := os.Lstat(s.Path(name)); err == nil {
		return nil // a list of the new scope already: the old one stays
	}
	st, err := old.read(name)
	if err != nil || st == nil {
		return err
	}
	st.BaseURL = ScopeURL(st.BaseURL)
	if err := s.Save(st); err != nil {
		return err
	}
	if err := os.Remove(old.Path(name)); err != nil {
		return failure.Wrap(failure.IO, err, "cannot delete "+old.Path(name)+" (moved to "+s.Path(name)+"): "+err.Error())
	}
	return nil
}

// Path is the state file of NAME.
func (s Store) Path(name string) string { return filepath.Join(s.Dir, name+".json") }

// prepare creates the directories, each 0700, and refuses any that
// another user could write (statefile).
func (s Store) prepare() error {
	if err := statefile.EnsureDir(s.Dir); err != nil {
		return err
	}
	// The parents up to tilookup/ are ours too: whoever can rename one
	// can swap the whole directory. Above that (~/.local/state) is the
	// user's business.
	dirs := []string{s.Root}
	if up := filepath.Dir(s.Root); filepath.Base(up) == "tilookup" {
		dirs = append(dirs, up)
	}
	for _, d := range dirs {
		if err := statefile.CheckDir(d); err != nil {
			return err
		}
	}
	return nil
}

// Open locks NAME for this run and reads its state (a new one when there
// is none). The lock is held until release; while it is, no other run of
// NAME reads or writes the state.
func (s Store) Open(name, profile, baseURL string) (st *State, release func(), err error) {
	if err := s.prepare(); err != nil {
		return nil, nil, err
	}
	release, err = statefile.Lock(s.Path(name), LockTimeout, "the watch list "+name)
	if err != nil {
		return nil, nil, err
	}
	s.removeTemps(name)
	st, err = s.read(name)
	if err != nil {
		release()
		return nil, nil, err
	}
	if st == nil {
		st = New(name, profile, baseURL)
	}
	return st, release, nil
}

// removeTemps deletes what a run killed while writing NAME's state left
// (statefile.WriteFile's temporary files). Under NAME's lock no other run
// is writing one.
func (s Store) removeTemps(name string) {
	tmps, _ := filepath.Glob(filepath.Join(s.Dir, "."+name+".json.tmp-*"))
	for _, t := range tmps {
		os.Remove(t)
	}
}

// read is nil, nil when NAME has no state yet.
func (s Store) read(name string) (*State, error) {
	path := s.Path(name)
	b, err := statefile.ReadFile(path, MaxStateSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, "cannot read the watch state "+path+": "+err.Error()).
			WithHint("move it away, or `tilookup watch forget " + name + "` to start the list again")
	}
	st, err := Decode(b, name)
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, path+": "+err.Error()).
			WithHint("nothing was looked up; move the file away to keep it, or `tilookup watch forget " + name + "` to start the list again")
	}
	return st, nil
}

// Save replaces NAME's state atomically; the caller holds the lock.
func (s Store) Save(st *State) error {
	path := s.Path(st.Name)
	err := statefile.WriteFile(path, 0o600, func(w io.Writer) error { return st.Encode(w) })
	if err != nil {
		return failure.Wrap(failure.IO, err, "cannot write the watch state "+path+": "+err.Error()+"; the previous state is kept")
	}
	return nil
}

// Forget deletes NAME's state under its lock. The lock file stays: a run
// waiting on it must not end up holding a lock on a deleted file while a
// third one locks a new one.
func (s Store) Forget(name string) (bool, error) {
	if err := s.prepare(); err != nil {
		return false, err
	}
	release, err := statefile.Lock(s.Path(name), LockTimeout, "the watch list "+name)
	if err != nil {
		return false, err
	}
	defer release()
	err = os.Remove(s.Path(name))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, failure.Wrap(failure.IO, err, "cannot delete "+s.Path(name)+": "+err.Error())
	}
	return true, nil
}

// Summary is what `watch list` shows of one list.
type Summary struct {
	Name    string `json:"name"`
	Values  int    `json:"values"`
	LastRun string `json:"last_run"` // RFC 3339, "" before any run
	Changes int    `json:"changes"`
	Errors  int    `json:"errors"`
	Problem string `json:"error,omitempty"` // a state that cannot be read
}

// List reads every list of the scope, by name. A list whose state cannot
// be read is listed with the reason, not skipped.
func (s Store) List() ([]Summary, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, "cannot read "+s.Dir+": "+err.Error())
	}
	if err := statefile.CheckDir(s.Dir); err != nil {
		return nil, err
	}
	var out []Summary
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || CheckName(name) != nil {
			continue
		}
		sum := Summary{Name: name}
		st, err := s.read(name)
		switch {
		case err != nil:
			sum.Problem = err.Error()
		case st != nil:
			sum.Values, sum.Changes, sum.Errors = len(st.Values), st.Changes, st.Errors
			if st.CheckedAt > 0 {
				sum.LastRun = time.Unix(st.CheckedAt, 0).UTC().Format(time.RFC3339)
			}
		}
		out = append(out, sum)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
