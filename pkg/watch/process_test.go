//go:build unix

package watch

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tilookup/tilookup/internal/testenv"
)

// bigState is a list of n values, every one matched, generation g in its
// counts, so that a state read back tells which write it came from.
func bigState(n, g int) *State {
	st := New("big", "default", "https://ti.example")
	for i := range n {
		st.Values[fmt.Sprintf("198.51.%d.%d", i/256, i%256)] = EntryOf(answer(
			res("passive_dns", strconv.Itoa(g), map[string]any{"seen": i}),
			res("ioc_feed", "1")), int64(g), st.Labels)
	}
	return st
}

// bigValues makes a state file whose write takes milliseconds: long enough
// for a kill to land in it, short enough for eight rounds to take a second.
const bigValues = 5000

// SIGKILL while the state is written, over and over: every time, the next
// run opens the list and reads a whole state (the old one or the new one,
// never a mix), and what the killed writer left does not pile up.
func TestKillMidWriteLeavesAWholeState(t *testing.T) {
	testenv.Slow(t, "starts and kills processes")
	if testing.Short() {
		t.Skip("kills processes")
	}
	dir := t.TempDir()
	store := Store{Root: dir, Dir: filepath.Join(dir, "default-x")}
	st, release, err := store.Open("big", "default", "https://ti.example")
	if err != nil {
		t.Fatal(err)
	}
	*st = *bigState(bigValues, 0)
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	release()
	midWrite := 0
	for round := range 8 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWatchWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TILOOKUP_WATCH_WRITER="+store.Dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill as soon as a write is under way (its temporary file
		// exists), after a few generations or none.
		skip := rand.IntN(3)
		deadline := time.Now().Add(20 * time.Second)
		// A write takes milliseconds: polling every 100µs catches it
		// without spinning a core the writer needs.
		writing := func() bool {
			time.Sleep(100 * time.Microsecond)
			tmps, _ := filepath.Glob(filepath.Join(store.Dir, ".big.json.tmp-*"))
			return len(tmps) > 0
		}
		for time.Now().Before(deadline) {
			if writing() {
				if skip == 0 {
					break
				}
				skip--
				for time.Now().Before(deadline) && writing() {
				}
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		left, _ := filepath.Glob(filepath.Join(store.Dir, ".big.json.tmp-*"))
		midWrite += len(left)
		got, release, err := store.Open("big", "default", "https://ti.example")
		if err != nil {
			t.Fatalf("round %d: after SIGKILL the list does not open: %v", round, err)
		}
		if len(got.Values) != bigValues {
			t.Fatalf("round %d: %d values, want %d", round, len(got.Values), bigValues)
		}
		gens := map[string]bool{}
		for _, e := range got.Values {
			gens[string(e.Resources[1].Count)] = true
		}
		if len(gens) != 1 {
			t.Fatalf("round %d: a state mixing writes: counts %v", round, gens)
		}
		release()
		if tmps, _ := filepath.Glob(filepath.Join(store.Dir, ".big.json.tmp-*")); len(tmps) != 0 {
			t.Fatalf("round %d: temporary files left after Open: %v", round, tmps)
		}
	}
	// A kill that never lands in a write proves nothing: most rounds
	// must have caught the writer with a temporary file open.
	if midWrite < 4 {
		t.Fatalf("only %d of 8 kills landed mid-write", midWrite)
	}
	t.Logf("%d of 8 kills landed mid-write", midWrite)
}

// TestWatchWriter is the process that TestKillMidWriteLeavesAWholeState
// kills: it writes the list again and again, each time a new generation.
func TestWatchWriter(t *testing.T) {
	dir := os.Getenv("TILOOKUP_WATCH_WRITER")
	if dir == "" {
		t.Skip("the writer of TestKillMidWriteLeavesAWholeState")
	}
	store := Store{Root: filepath.Dir(dir), Dir: dir}
	for g := 1; ; g++ {
		st, release, err := store.Open("big", "default", "https://ti.example")
		if err != nil {
			t.Fatal(err)
		}
		*st = *bigState(bigValues, g)
		if err := store.Save(st); err != nil {
			t.Fatal(err)
		}
		release()
	}
}
