// Package cache keeps search answers on disk, as the server's bytes, so
// that a repeated lookup costs no request. Each answer is one file, written
// to a temporary name and renamed into place, and read without any lock:
// any number of processes (a long-lived MCP server, a bulk run, a script)
// share one cache and none waits for another. A file that is torn, corrupt
// or not ours reads as a miss and is replaced by the next answer. A size
// cap evicts the oldest answers.
package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilookup/tilookup/pkg/statefile"
)

// DefaultMaxSize is the size cap when none is configured.
const DefaultMaxSize = 100 << 20

// DefaultMaxEntry bounds what is read of one entry when Options say
// nothing: the default max_response_size (32 MiB) and a header. A bigger
// file is not one we wrote (or not for this limit) and reads as a miss.
const DefaultMaxEntry = 32<<20 + 4<<10

// magic starts every entry; a file without it is not ours. The version
// changes with the format, so that an old file reads as a miss.
const magic = "tilookup-cache 1 "

// Options configure a Cache. Zero values get defaults.
type Options struct {
	Dir     string // where the answers live; see DefaultDir
	MaxSize int64  // bytes on disk before the oldest answers go; 0 = DefaultMaxSize
	// MaxEntry bounds the bytes read of one entry (the response size
	// cap plus a header); 0 = DefaultMaxEntry.
	MaxEntry int64
	Now      func() time.Time // the clock; tests set it
}

// Cache is a directory of answers. It is safe for concurrent use, within
// a process and between processes.
type Cache struct {
	dir      string
	maxSize  int64
	maxEntry int64
	now      func() time.Time

	// checked is the outcome of the one look at the directory's owner
	// and mode (Check).
	checkOnce sync.Once
	checkErr  error
	shardsOK  sync.Map // shard directory -> true once checked safe

	// untilScan counts down the bytes written before the next look at the
	// cache's size. It starts at a random point of the interval, so that
	// processes that each write little still check, in proportion to what
	// they write.
	untilScan atomic.Int64
	scanning  atomic.Bool
}

// Open returns the cache in o.Dir. It touches nothing on disk: the
// directory is made by the first answer stored.
func Open(o Options) *Cache {
	c := &Cache{dir: o.Dir, maxSize: o.MaxSize, maxEntry: o.MaxEntry, now: o.Now}
	if c.maxSize <= 0 {
		c.maxSize = DefaultMaxSize
	}
	if c.maxEntry <= 0 {
		c.maxEntry = DefaultMaxEntry
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.untilScan.Store(rand.Int64N(c.scanInterval()) + 1)
	return c
}

// DefaultDir is $XDG_CACHE_HOME/tilookup/answers (os.UserCacheDir on
// other systems).
func DefaultDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "tilookup", "answers"), nil
}

// Check refuses a cache directory that another local user could write
// into (group- or world-writable, owned by someone else, a link), as ssh
// refuses such a key: whoever can replace an entry can turn a match into
// "No matches". A directory not made yet is fine: it is made 0700. The
// answer is the same for the Cache's life; every read and write obeys it.
func (c *Cache) Check() error {
	c.checkOnce.Do(func() {
		if _, err := os.Lstat(c.dir); errors.Is(err, fs.ErrNotExist) {
			return
		}
		c.checkErr = statefile.CheckDir(c.dir)
	})
	return c.checkErr
}

// Dir is where the answers live.
func (c *Cache) Dir() string { return c.dir }

// MaxSize is the size cap in bytes.
func (c *Cache) MaxSize() int64 { return c.maxSize }

// MaxAnswer is the largest answer stored: a bigger one would push out
// many others.
func (c *Cache) MaxAnswer() int64 { return MaxAnswerOf(c.maxSize) }

// MaxAnswerOf is the largest answer a cache of maxSize bytes stores (a
// shared cache keeps the disk cache's rule); maxSize <= 0 is the default.
func MaxAnswerOf(maxSize int64) int64 {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	return maxSize / maxShare
}

// Now is the cache's clock.
func (c *Cache) Now() time.Time { return c.now() }

// Entry is a stored answer.
type Entry struct {
	Body    []byte
	Stored  time.Time
	Expires time.Time
}

// Get returns the answer stored under key, unless it has expired or its
// file is damaged or foreign: all of those are misses.
func (c *Cache) Get(key string) (Entry, bool) {
	e, err := c.read(key)
	if err != nil || !c.now().Before(e.Expires) {
		return Entry{}, false
	}
	return e, true
}

// read returns the entry of key whatever its age: an error is no file, or
// errDamaged.
func (c *Cache) read(key string) (Entry, error) {
	if err := c.Check(); err != nil {
		return Entry{}, err
	}
	id := hashKey(key)
	path := c.path(id)
	if err := c.checkShard(filepath.Dir(path)); err != nil {
		return Entry{}, err
	}
	data, err := c.readEntry(path)
	if err != nil {
		return Entry{}, err
	}
	return decode(data, id)
}

// Put stores body under key for ttl. The file appears whole or not at all:
// it is written under a temporary name, then renamed over any older answer
// (or a damaged file) in one step.
func (c *Cache) Put(key string, body []byte, ttl time.Duration) error {
	if err := c.Check(); err != nil {
		return err
	}
	id := hashKey(key)
	now := c.now()
	data := encode(id, body, now, now.Add(ttl))
	if err := c.writeFile(c.path(id), data, now); err != nil {
		return err
	}
	c.wrote(int64(len(data)))
	return nil
}

func (c *Cache) writeFile(path string, data []byte, now time.Time) error {
	dir := filepath.Dir(path)
	if err := c.mkdir(dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, tmpPrefix+"*") // mode 0600
	if err != nil {
		return err
	}
	// No fsync: an answer lost or torn by a crash is only a miss (the
	// checksum catches it), while a sync per answer would slow every bulk
	// run down to the disk's pace.
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The file's time is when the answer was stored, on the cache's
		// clock: eviction and clear --older-than go by it without opening
		// the file. Where times cannot be set, the write time is as good.
		_ = os.Chtimes(tmp.Name(), now, now)
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// checkShard checks a shard directory as Check checks the cache's, once
// per shard that is safe (an unsafe one is checked again each time, so
// that a chmod by the user takes effect).
func (c *Cache) checkShard(dir string) error {
	if _, ok := c.shardsOK.Load(dir); ok {
		return nil
	}
	if err := statefile.CheckDir(dir); err != nil {
		return err
	}
	c.shardsOK.Store(dir, true)
	return nil
}

// readEntry reads an entry file without following a link, from a regular
// file only (a FIFO would block, /dev/zero never end), within maxEntry.
func (c *Cache) readEntry(path string) ([]byte, error) {
	return statefile.ReadFile(path, c.maxEntry)
}

// mkdir makes the shard directory and the cache directory above it, both
// private: answers say what the user looked for.
func (c *Cache) mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err == nil {
		return nil
	} else if errors.Is(err, fs.ErrExist) {
		return statefile.CheckDir(dir)
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(c.dir, 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// tmpPrefix names files being written; scans skip them while they are
// young and remove them when a writer died before its rename.
const tmpPrefix = ".tmp-"

// path is where the answer of key hash id lives: 256 shard directories
// keep each directory small for large caches.
func (c *Cache) path(id string) string {
	return filepath.Join(c.dir, id[:2], id[2:])
}

// EncodeEntry lays out the entry of key as every store keeps it: a
// shared cache holds the same bytes as a file of the disk cache.
func EncodeEntry(key string, body []byte, stored, expires time.Time) []byte {
	return encode(hashKey(key), body, stored, expires)
}

// DecodeEntry reads an entry that EncodeEntry laid out for key; anything
// else (torn, foreign, another key's) is an error.
func DecodeEntry(data []byte, key string) (Entry, error) {
	return decode(data, hashKey(key))
}

// HashKey names the entry of key in a store, revealing neither the token's
// fingerprint nor the value.
func HashKey(key string) string { return hashKey(key) }

// hashKey names an entry. The key holds the token's fingerprint and the
// value searched; the file name reveals neither.
func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// encode lays out an entry: one header line, then the body.
//
//	tilookup-cache 1 <key hash> <stored> <expires> <body length> <crc32>\n<body>
//
// Times are Unix nanoseconds. The key hash catches a file moved to another
// name; the length and checksum catch a torn or damaged body.
func encode(id string, body []byte, stored, expires time.Time) []byte {
	header := fmt.Sprintf("%s%s %d %d %d %08x\n", magic, id, stored.UnixNano(), expires.UnixNano(), len(body), crc32.ChecksumIEEE(body))
	return append([]byte(header), body...)
}

var errDamaged = errors.New("not a cache entry, or a damaged one")

func decode(data []byte, id string) (Entry, error) {
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok {
		return Entry{}, errDamaged
	}
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return Entry{}, errDamaged
	}
	fields := bytes.Fields(rest[:nl])
	body := rest[nl+1:]
	if len(fields) != 5 || string(fields[0]) != id {
		return Entry{}, errDamaged
	}
	stored, err1 := strconv.ParseInt(string(fields[1]), 10, 64)
	expires, err2 := strconv.ParseInt(string(fields[2]), 10, 64)
	size, err3 := strconv.Atoi(string(fields[3]))
	sum, err4 := strconv.ParseUint(string(fields[4]), 16, 32)
	if err := errors.Join(err1, err2, err3, err4); err != nil || size != len(body) || uint32(sum) != crc32.ChecksumIEEE(body) {
		return Entry{}, errDamaged
	}
	return Entry{Body: body, Stored: time.Unix(0, stored), Expires: time.Unix(0, expires)}, nil
}
