// Command minclient is the bulk benchmark's baseline: the least a Go
// program can do to ask the search endpoint for every value of a file with
// N requests in flight and write the bodies in input order, one per line.
//
//	minclient -c 16 -base http://127.0.0.1:PORT -token T FILE > out
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
)

func main() {
	c := flag.Int("c", 16, "requests in flight")
	base := flag.String("base", "", "base URL")
	token := flag.String("token", "", "bearer token")
	flag.Parse()
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	values := strings.Fields(string(data))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = *c
	client := &http.Client{Transport: tr}

	bodies := make([]chan []byte, len(values))
	for i := range bodies {
		bodies[i] = make(chan []byte, 1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range *c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				req, _ := http.NewRequest("GET", *base+"/api/ti/resources/search?q="+url.QueryEscape(values[i]), nil)
				req.Header.Set("Authorization", "Bearer "+*token)
				resp, err := client.Do(req)
				if err != nil {
					bodies[i] <- []byte(`{"error":"` + err.Error() + `"}`)
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				bodies[i] <- b
			}
		}()
	}
	go func() {
		for i := range values {
			next <- i
		}
		close(next)
	}()
	out := bufio.NewWriter(os.Stdout)
	for i := range values {
		out.Write(<-bodies[i])
		out.WriteByte('\n')
	}
	out.Flush()
	wg.Wait()
}
