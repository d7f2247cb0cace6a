// Command minclient is the bulk benchmark's baseline: the least a Go
// program can do to ask the search endpoint for every value of a file with
// N requests in flight, honouring a 503's Retry-After for that value only,
// and write each body as it arrives (unordered), one per line.
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
	"strconv"
	"strings"
	"sync"
	"time"
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

	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	next := make(chan string)
	var wg sync.WaitGroup
	for range *c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range next {
				b := get(client, *base, *token, v)
				mu.Lock()
				out.Write(b)
				out.WriteByte('\n')
				mu.Unlock()
			}
		}()
	}
	for _, v := range values {
		next <- v
	}
	close(next)
	wg.Wait()
	out.Flush()
}

func get(client *http.Client, base, token, v string) []byte {
	for try := 0; ; try++ {
		req, _ := http.NewRequest("GET", base+"/api/ti/resources/search?q="+url.QueryEscape(v), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return []byte(`{"error":"` + err.Error() + `"}`)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 503 && try < 2 {
			secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			time.Sleep(time.Duration(secs) * time.Second)
			continue
		}
		return b
	}
}
