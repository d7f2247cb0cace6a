package watch

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The state file is read at the start of every run and by `watch list`:
// whatever its bytes (an empty list, a file cut short, one edited by
// hand), Decode returns a state or ErrDamaged, never panics; and a state
// it accepts is one Encode writes back so that it reads again, to the
// same bytes.
func FuzzWatchState(f *testing.F) {
	empty := New("n", "default", "https://ti.example")
	one := New("n", "default", "")
	one.Values["203.0.113.66"] = &Entry{At: 5, Resources: []Resource{{ID: "r", Count: "2", Digest: "0123456789ab"}}}
	one.Values["nothing.example"] = &Entry{At: 5}
	for _, st := range []*State{empty, one} {
		var b bytes.Buffer
		if err := st.Encode(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	head := `{"format":"tilookup-watch-state","version":1,"name":"n","profile":"","base_url":"","checked_at":0,"changes":0,"errors":0,"labels":{},"values":{`
	for _, s := range []string{
		head + "\n}}\n", // an empty list, as Encode writes it
		head + "}}\n",
		head + "\n\n}}\n",
		head + "\n\"a\":{\"t\":1}\n}}\n",
		head + "\n\"a\":{\"t\":1},\n}}\n",
		head + "\n\"a\":{\"t\":1,\"r\":[{\"id\":\"x\",\"n\":1,\"d\":\"a\\\"b\"}]}\n}}\n",
		`{"values":{}}`, "{\"values\":{\n}}\n", "\n}}\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := Decode(b, "n")
		if err != nil {
			return
		}
		var once bytes.Buffer
		if err := st.Encode(&once); err != nil {
			t.Fatalf("Encode of a decoded state: %v", err)
		}
		again, err := Decode(once.Bytes(), "n")
		if err != nil {
			t.Fatalf("a decoded state, written again, does not read: %v\n%s", err, once.Bytes())
		}
		if len(again.Values) != len(st.Values) {
			t.Fatalf("%d values, %d after writing them again", len(st.Values), len(again.Values))
		}
		var twice bytes.Buffer
		if err := again.Encode(&twice); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("writing a state read back changes it:\n%s\n%s", once.Bytes(), twice.Bytes())
		}
		if !json.Valid(once.Bytes()) {
			t.Fatalf("Encode wrote invalid JSON:\n%s", once.Bytes())
		}
	})
}
