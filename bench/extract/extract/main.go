// Command extract runs ioc.ExtractReader over a file (all types) and prints
// how many indicators it found, for bench/extract/run.sh.
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/tilookup/tilookup/pkg/ioc"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: extract FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
	defer f.Close()
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	n := 0
	err = ioc.ExtractReader(f, nil, func(in ioc.Indicator) error {
		n++
		// Plain writes, not Fprintf: formatting would be a sizeable part
		// of what is timed, and it is no part of extraction.
		w.WriteString(string(in.Type))
		w.WriteByte('\t')
		w.WriteString(in.Value)
		return w.WriteByte('\n')
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%d indicators\n", n)
}
