package cache

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/statefile"
)

// staleTmp is how old a temporary file must be before a scan takes it for
// the leftover of a writer that died: no live writer takes that long.
const staleTmp = 10 * time.Minute

// evictTo is the share of the cap that eviction brings the cache down to,
// so that the next few answers do not each start another eviction.
const evictTo = 0.9

// scanInterval is how many bytes are written, on average, between two
// looks at the cache's total size: a sixteenth of the cap, so the cache
// overshoots by little and a scan of the directory is rare.
func (c *Cache) scanInterval() int64 { return max(c.maxSize/16, 1) }

// wrote counts n bytes written and evicts when the countdown runs out.
func (c *Cache) wrote(n int64) {
	if c.untilScan.Add(-n) > 0 {
		return
	}
	c.untilScan.Store(c.scanInterval())
	if !c.scanning.CompareAndSwap(false, true) {
		return // another goroutine of this process is at it
	}
	defer c.scanning.Store(false)
	_, _ = c.Evict()
}

// file is one entry on disk, as a directory scan sees it.
type file struct {
	path string
	size int64
	mod  time.Time
}

// scan lists the entries, oldest first, and removes the temporary files
// of writers that died. Files that vanish under it (another process
// evicting) are skipped.
func (c *Cache) scan() ([]file, error) {
	shards, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := c.Check(); err != nil {
		return nil, err
	}
	now := c.now()
	var files []file
	for _, sh := range shards {
		if !sh.IsDir() || !isShard(sh.Name()) {
			continue // not ours: left alone
		}
		dir := filepath.Join(c.dir, sh.Name())
		if statefile.CheckDir(dir) != nil {
			continue // not ours, or not safe: neither read nor removed
		}
		names, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, n := range names {
			info, err := n.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			path := filepath.Join(dir, n.Name())
			if strings.HasPrefix(n.Name(), tmpPrefix) {
				if now.Sub(info.ModTime()) > staleTmp {
					os.Remove(path)
				}
				continue
			}
			if !isEntryName(n.Name()) {
				continue // not an entry: clear and eviction leave it alone
			}
			files = append(files, file{path: path, size: info.Size(), mod: info.ModTime()})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	return files, nil
}

func isShard(name string) bool {
	return len(name) == 2 && strings.Trim(name, "0123456789abcdef") == ""
}

// isEntryName: an entry is named by the rest of its key's SHA-256 in hex
// (path), 62 digits; anything else in a shard is not ours.
func isEntryName(name string) bool {
	return len(name) == 62 && strings.Trim(name, "0123456789abcdef") == ""
}

// Evict removes the oldest answers while the cache is over its cap, down
// to evictTo of it, and reports how many files and bytes went.
func (c *Cache) Evict() (removed int, freed int64) {
	files, err := c.scan()
	if err != nil {
		return 0, 0
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	if total <= c.maxSize {
		return 0, 0
	}
	target := int64(float64(c.maxSize) * evictTo)
	for _, f := range files {
		if total <= target {
			break
		}
		if !isEntry(f.path) {
			continue
		}
		if err := os.Remove(f.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= f.size
			removed++
			freed += f.size
		}
	}
	return removed, freed
}

// Stats describe what the cache holds.
type Stats struct {
	Entries int
	Expired int   // entries past their time (they read as misses until replaced or evicted)
	Bytes   int64 // on disk, headers included
	Oldest  time.Time
	Newest  time.Time
}

// Stats reads every entry's header to count the expired ones; a damaged or
// foreign file counts as expired, since it will never be a hit.
func (c *Cache) Stats() (Stats, error) {
	files, err := c.scan()
	if err != nil {
		return Stats{}, err
	}
	var s Stats
	now := c.now()
	for _, f := range files {
		s.Entries++
		s.Bytes += f.size
		if !c.live(f.path, now) {
			s.Expired++
		}
	}
	if len(files) > 0 {
		s.Oldest, s.Newest = files[0].mod, files[len(files)-1].mod
	}
	return s, nil
}

// live tells whether the entry at path would be a hit now.
func (c *Cache) live(path string, now time.Time) bool {
	data, err := c.readEntry(path)
	if err != nil {
		return false
	}
	e, err := decode(data, filepath.Base(filepath.Dir(path))+filepath.Base(path))
	return err == nil && now.Before(e.Expires)
}

// Clear removes the answers stored more than olderThan ago (every answer
// when olderThan is 0) and reports how many files and bytes went.
func (c *Cache) Clear(olderThan time.Duration) (removed int, freed int64, err error) {
	files, err := c.scan()
	if err != nil {
		return 0, 0, err
	}
	cutoff := c.now().Add(-olderThan)
	for _, f := range files {
		if olderThan > 0 && !f.mod.Before(cutoff) {
			break // oldest first: the rest are younger
		}
		if !isEntry(f.path) {
			continue
		}
		rerr := os.Remove(f.path)
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = rerr
			continue
		}
		if rerr == nil {
			removed++
			freed += f.size
		}
	}
	return removed, freed, err
}

// isEntry tells, by its first bytes, a file that this cache wrote from
// one that only has an entry's name: only the first kind is removed.
func isEntry(path string) bool {
	f, _, err := statefile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(magic))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == magic
}
