package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed data must be what the generator makes: edit the generator,
// then run `go generate ./pkg/sandbox`.
func TestCommittedDataIsFresh(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../demo.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("pkg/sandbox/data/demo.json is stale; run go generate ./pkg/sandbox")
	}
	again, _ := generate()
	if !bytes.Equal(again, want) {
		t.Fatal("the generator is not deterministic")
	}
}
