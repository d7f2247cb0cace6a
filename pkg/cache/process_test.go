package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/internal/testenv"
)

// Eight processes share one small cache: each writes answers of varied
// sizes under the same keys as the others and reads them back, while the
// cap makes them evict under each other's feet. Every read must be a whole
// answer of the key asked (never a torn, damaged or foreign one), and
// every process must succeed.
func TestProcessesShareTheCache(t *testing.T) {
	testenv.Slow(t, "starts processes")
	if testing.Short() {
		t.Skip("starts 8 processes")
	}
	dir := t.TempDir()
	const procs = 8
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheWorker$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TILOOKUP_CACHE_WORKER="+strconv.Itoa(i), "TILOOKUP_CACHE_WORKER_DIR="+dir)
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("worker %d: %v\n%s", i, err, outs[i])
		} else if !strings.Contains(outs[i].String(), "hits=") {
			t.Errorf("worker %d did not run:\n%s", i, outs[i])
		} else {
			t.Logf("worker %d: %s", i, strings.TrimSpace(strings.Split(outs[i].String(), "\n")[0]))
		}
	}
	if s, err := Open(Options{Dir: dir}).Stats(); err != nil || s.Entries == 0 {
		t.Fatalf("after the workers: %+v %v", s, err)
	}
}

// TestCacheWorker is one process of TestProcessesShareTheCache; it does
// nothing when run on its own.
func TestCacheWorker(t *testing.T) {
	id := os.Getenv("TILOOKUP_CACHE_WORKER")
	if id == "" {
		t.Skip("a worker of TestProcessesShareTheCache")
	}
	// Room for about a third of the keys' answers: eviction runs all the time.
	c := Open(Options{Dir: os.Getenv("TILOOKUP_CACHE_WORKER_DIR"), MaxSize: 64 << 10})
	const keys, rounds = 12, 400
	hits, misses := 0, 0
	for i := range rounds {
		key := fmt.Sprintf("key-%d", (i*7+len(id))%keys)
		if i%2 == 0 {
			if err := c.Put(key, answer(key, id, i), time.Hour); err != nil {
				t.Fatalf("put %s: %v", key, err)
			}
		}
		e, err := c.read(key)
		switch {
		case errors.Is(err, os.ErrNotExist):
			misses++ // evicted by another process: a miss, not an error
		case err != nil:
			t.Fatalf("round %d: %s reads as %v: a torn or damaged answer", i, key, err)
		default:
			if err := checkAnswer(key, e.Body); err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
			hits++
		}
	}
	if hits == 0 {
		t.Fatal("no hit at all")
	}
	fmt.Printf("hits=%d misses=%d\n", hits, misses)
}

// answer is a body that says which key it belongs to and checks itself,
// of a size that varies from 100 bytes to 16 KB, so that a torn write
// would show.
func answer(key, writer string, round int) []byte {
	pad := strings.Repeat(writer, 100+(round*997)%16000)
	sum := sha256.Sum256([]byte(key + pad))
	return []byte(key + "|" + pad + "|" + hex.EncodeToString(sum[:]))
}

func checkAnswer(key string, body []byte) error {
	parts := strings.Split(string(body), "|")
	if len(parts) != 3 || parts[0] != key {
		return fmt.Errorf("%s got an answer that is not its own (%d bytes)", key, len(body))
	}
	sum := sha256.Sum256([]byte(parts[0] + parts[1]))
	if hex.EncodeToString(sum[:]) != parts[2] {
		return fmt.Errorf("%s got a torn answer (%d bytes)", key, len(body))
	}
	return nil
}
