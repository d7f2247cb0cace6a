package ioc

import (
	"fmt"
	"testing"
)

func TestPlay(t *testing.T) {
	c := map[Type]int{}
	for _, in := range Extract(benchText(4 << 20)) {
		c[in.Type]++
	}
	fmt.Println(c)
}
