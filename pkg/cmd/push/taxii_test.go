package push

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/push"
)

// bundleFile is what -o stix writes for several values (pkg/export's
// golden file): the document push taxii reads.
const bundleFile = "../../export/testdata/several.stix.json"

// readBundle is the bundle's objects, compacted as push sends them.
func readBundle(t *testing.T) []push.Object {
	t.Helper()
	fh, err := os.Open(bundleFile)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	b, err := push.ReadBundle(fh)
	if err != nil {
		t.Fatal(err)
	}
	return b.Objects
}

// taxiiRun is one push: its exit code and output, the polls' pauses and
// the debug log.
type taxiiRun struct {
	run
	sleeps []time.Duration
}

// taxiiPush runs `push taxii` on file against the stand-in, with auth.
func taxiiPush(t *testing.T, s *taxiiStandIn, auth push.TAXIIAuth, collection, file string, format output.Format, o push.TAXIIOptions) taxiiRun {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	var debug bytes.Buffer
	var r taxiiRun
	sleep := func(_ context.Context, d time.Duration) error { r.sleeps = append(r.sleeps, d); return nil }
	opts := &TAXIIOptions{IO: ios, File: file, TAXIIOptions: o,
		Format: func() (output.Format, error) { return format, nil },
		Client: func() (*push.TAXII, error) {
			c, err := api.New(api.Options{BaseURL: s.url(), Token: auth.Token + auth.Password, Retries: 2, Timeout: 5 * time.Second,
				Debug: &debug, Sleep: sleep}, false)
			if err != nil {
				return nil, err
			}
			tx := push.NewTAXII(c, collection, auth, "tilookup-test")
			tx.Sleep = sleep
			return tx, nil
		}}
	err := runTAXII(context.Background(), opts)
	if err != nil && !isReported(err) {
		errOut.WriteString(err.Error())
	}
	for _, secret := range []string{auth.Token, auth.Password} {
		if secret != "" && strings.Contains(debug.String()+out.String()+errOut.String(), secret) {
			t.Errorf("a credential was printed:\n%s%s%s", debug.String(), out, errOut)
		}
	}
	if !strings.Contains(debug.String(), "Authorization: ") {
		t.Errorf("the debug log shows no request headers:\n%s", debug.String())
	}
	r.code = failure.ExitCode(err)
	if rep, ok := err.(*failure.Reported); ok {
		r.code = rep.Code
	}
	r.out, r.errOut = out.String(), errOut.String()
	return r
}

func bearer(s *taxiiStandIn) push.TAXIIAuth { return push.TAXIIAuth{Token: s.token} }

// heldOnce: every object of the bundle is in the collection once, nothing
// else is.
func heldOnce(t *testing.T, s *taxiiStandIn, objects []push.Object) {
	t.Helper()
	got := s.held()
	for _, o := range objects {
		if got[o.ID] != 1 {
			t.Errorf("%s is in the collection %d times, want once", o.ID, got[o.ID])
		}
	}
	if len(got) != len(objects) {
		t.Errorf("the collection holds %d objects, want %d", len(got), len(objects))
	}
}

func line(total, ok, failed, pending int) string {
	return strconv.Itoa(total) + " objects: " + strconv.Itoa(ok) + " succeeded, " + strconv.Itoa(failed) + " failed, " + strconv.Itoa(pending) + " pending\n"
}

// TestTAXIIPushSplitsThenAgain: a max_content_length that holds a few
// objects splits the bundle into requests that each keep within it, and
// no more requests than needed; a second push adds nothing.
func TestTAXIIPushSplitsThenAgain(t *testing.T) {
	s := newTAXIIStandIn(t)
	objects := readBundle(t)
	largest := 0
	for _, o := range objects {
		largest = max(largest, len(o.Raw))
	}
	s.max = int64(2*largest + 20)
	first := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{Wait: time.Minute})
	if first.code != 0 || first.out != line(len(objects), len(objects), 0, 0) {
		t.Fatalf("exit %d, %q: %s", first.code, first.out, first.errOut)
	}
	heldOnce(t, s, objects)
	if len(s.bodies) < 2 {
		t.Fatalf("%d requests for %d bytes of objects under a %d-byte bound", len(s.bodies), len(objects)*largest, s.max)
	}
	// Each body is within the bound, and the next request's first object
	// would not have fitted in it.
	next := 0
	for i, n := range s.bodies {
		if int64(n) > s.max {
			t.Errorf("request %d is %d bytes, over max_content_length %d", i+1, n, s.max)
		}
		size := len(`{"objects":[]}`) - 1
		for next < len(objects) && size+1+len(objects[next].Raw) <= n {
			size += 1 + len(objects[next].Raw)
			next++
		}
		if i+1 < len(s.bodies) && int64(n+1+len(objects[next].Raw)) <= s.max {
			t.Errorf("request %d (%d bytes) was cut before %s, which fitted", i+1, n, objects[next].ID)
		}
	}
	again := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.JSON, push.TAXIIOptions{Wait: time.Minute})
	var res push.TAXIIResult
	if err := json.Unmarshal([]byte(again.out), &res); err != nil || again.code != 0 {
		t.Fatalf("second push: exit %d, %q: %v", again.code, again.out, err)
	}
	if res.SuccessCount != len(objects) || res.FailureCount != 0 || len(res.StatusIDs) != res.Requests || res.MaxContentLength != s.max {
		t.Errorf("second push: %+v", res)
	}
	for _, d := range res.Successes {
		if d.Message != "Object already added" {
			t.Errorf("%s: %q, want the server's word that it had it", d.ID, d.Message)
		}
	}
	heldOnce(t, s, objects)
}

// TestTAXIIPushFollowsTheStatus: a status pending over two polls is
// followed until complete with --wait, with a growing pause; without, the
// objects are reported pending and the run still succeeds.
func TestTAXIIPushFollowsTheStatus(t *testing.T) {
	s := newTAXIIStandIn(t)
	s.pendingPolls = 2
	objects := readBundle(t)
	r := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{Wait: time.Minute})
	if r.code != 0 || r.out != line(len(objects), len(objects), 0, 0) {
		t.Fatalf("exit %d, %q: %s", r.code, r.out, r.errOut)
	}
	polls := 0
	for _, req := range s.requests() {
		if strings.HasPrefix(req, "GET "+s.root+"status/") {
			polls++
		}
	}
	if polls != 3 || len(r.sleeps) != 3 || r.sleeps[1] <= r.sleeps[0] {
		t.Errorf("%d polls after pauses %v, want 3 with growing pauses", polls, r.sleeps)
	}
	s = newTAXIIStandIn(t)
	s.pendingPolls = 2
	r = taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{})
	if r.code != 0 || r.out != line(len(objects), 0, 0, len(objects)) || !strings.Contains(r.errOut, "still pending") {
		t.Errorf("without --wait: exit %d, %q %q", r.code, r.out, r.errOut)
	}
}

// TestTAXIIPushStatusThatStopsAnswering: a status that fails to answer
// keeps its objects pending, with a warning that names it, and the push,
// whose objects the server took, succeeds.
func TestTAXIIPushStatusThatStopsAnswering(t *testing.T) {
	s := newTAXIIStandIn(t)
	s.pendingPolls = 1
	s.fault = func(_ int, r *http.Request) (int, bool, http.Header) {
		if strings.Contains(r.URL.Path, "/status/") {
			return http.StatusInternalServerError, false, nil
		}
		return 0, false, nil
	}
	objects := readBundle(t)
	r := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{Wait: time.Minute})
	if r.code != 0 || r.out != line(len(objects), 0, 0, len(objects)) || !strings.Contains(r.errOut, "could not be followed: taxii: 500") {
		t.Errorf("exit %d, %q %q", r.code, r.out, r.errOut)
	}
	heldOnce(t, s, objects)
}

// TestTAXIIPushRefusedRequest: a server that takes less than its
// max_content_length says refuses the larger requests with 413; their
// objects are named failed with its description, and the rest go on.
func TestTAXIIPushRefusedRequest(t *testing.T) {
	objects := readBundle(t)
	largest := 0
	for _, o := range objects {
		largest = max(largest, len(o.Raw))
	}
	// The smallest request of a push that fits is the bound the server
	// really takes.
	sizes := newTAXIIStandIn(t)
	sizes.max = int64(2*largest + 20)
	taxiiPush(t, sizes, bearer(sizes), writableCollection, bundleFile, output.Table, push.TAXIIOptions{})
	s := newTAXIIStandIn(t)
	s.max = sizes.max
	s.enforced = int64(slices.Min(sizes.bodies))
	r := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.JSON, push.TAXIIOptions{Wait: time.Minute})
	var res push.TAXIIResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil || r.code != failure.ExitNoMatch {
		t.Fatalf("exit %d, %q: %v", r.code, r.out, err)
	}
	if res.FailureCount == 0 || res.SuccessCount == 0 || res.FailureCount+res.SuccessCount != len(objects) {
		t.Errorf("%d failed and %d succeeded of %d: want some of each", res.FailureCount, res.SuccessCount, len(objects))
	}
	held := s.held()
	for _, f := range res.Failures {
		if f.Message != "413: Content-Length header not valid or exceeds maximum!" || held[f.ID] != 0 {
			t.Errorf("%s: %q (held %d times)", f.ID, f.Message, held[f.ID])
		}
	}
}

// TestTAXIIPushWaitIsBounded: a status that never completes is followed
// only for --wait.
func TestTAXIIPushWaitIsBounded(t *testing.T) {
	s := newTAXIIStandIn(t)
	s.pendingPolls = 1 << 30
	objects := readBundle(t)
	ios, _, out, errOut := iostreams.Test()
	opts := sleepingOpts(ios, s, 300*time.Millisecond, func(ctx context.Context, _ time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
			return nil
		}
	})
	start := time.Now()
	err := runTAXII(context.Background(), opts)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("--wait 300ms took %s", took)
	}
	if err != nil || out.String() != line(len(objects), 0, 0, len(objects)) {
		t.Errorf("%v, %q %q", err, out, errOut)
	}
}

// TestTAXIIPushNamesFailures: the objects the server fails, and one too
// big to send alone, are named with the reason, and the run exits 1.
func TestTAXIIPushNamesFailures(t *testing.T) {
	s := newTAXIIStandIn(t)
	s.pendingPolls = 1
	objects := readBundle(t)
	biggest := objects[0]
	for _, o := range objects {
		if len(o.Raw) > len(biggest.Raw) {
			biggest = o
		}
	}
	var rejected string
	for _, o := range objects {
		if o.Type == "indicator" && o.ID != biggest.ID {
			rejected = o.ID
		}
	}
	s.reject[rejected] = "invalid pattern: [ipv4-addr:value = ]"
	s.max = int64(len(biggest.Raw)) // the envelope makes it too big
	r := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.JSON, push.TAXIIOptions{Wait: time.Minute})
	if r.code != failure.ExitNoMatch {
		t.Fatalf("exit %d, want 1: %s", r.code, r.errOut)
	}
	var res push.TAXIIResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, f := range res.Failures {
		failed[f.ID] = f.Message
	}
	if !strings.Contains(failed[rejected], "invalid pattern") || !strings.Contains(failed[biggest.ID], "max_content_length") || len(failed) != 2 {
		t.Errorf("failures %v, want %s with the server's message and %s as too big", failed, rejected, biggest.ID)
	}
	if res.FailureCount != 2 || res.SuccessCount != len(objects)-2 || res.PendingCount != 0 {
		t.Errorf("%+v", res)
	}
	if held := s.held(); held[biggest.ID] != 0 || held[rejected] != 0 {
		t.Errorf("the collection holds a failed object: %v", held)
	}
	table := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{Wait: time.Minute})
	if table.code != 1 || !strings.Contains(table.errOut, rejected+" failed: invalid pattern") || table.out != line(len(objects), len(objects)-2, 2, 0) {
		t.Errorf("the table report: %q %q", table.out, table.errOut)
	}
}

// TestTAXIIPushDryRun reads the API root and the collection, writes
// nothing, and says what it would send in how many requests.
func TestTAXIIPushDryRun(t *testing.T) {
	s := newTAXIIStandIn(t)
	objects := readBundle(t)
	r := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{DryRun: true, Wait: time.Minute})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	for _, req := range s.requests() {
		if !strings.HasPrefix(req, "GET ") {
			t.Errorf("a dry run sent %s", req)
		}
	}
	for _, o := range objects {
		if !strings.Contains(r.out, "would send "+o.ID+"\n") {
			t.Errorf("the dry run does not name %s", o.ID)
		}
	}
	want := strconv.Itoa(len(objects)) + " objects: " + strconv.Itoa(len(objects)) + " would be sent in 1 requests"
	if !strings.Contains(r.out, want) || len(s.held()) != 0 {
		t.Errorf("dry run said %q", r.out)
	}
}

// TestTAXIIPushAuth: a bearer token and HTTP basic both reach the server;
// wrong or missing credentials, a read-only collection and an unknown one
// stop the push before anything is written, with their exit codes.
func TestTAXIIPushAuth(t *testing.T) {
	objects := readBundle(t)
	s := newTAXIIStandIn(t)
	s.user, s.password = "analyst", "basic-password-0123456789"
	if r := taxiiPush(t, s, push.TAXIIAuth{User: s.user, Password: s.password}, writableCollection, bundleFile, output.Table, push.TAXIIOptions{}); r.code != 0 {
		t.Errorf("basic: exit %d: %s", r.code, r.errOut)
	}
	heldOnce(t, s, objects)
	for _, tc := range []struct {
		name       string
		auth       push.TAXIIAuth
		collection string
		code       int
		says       string
	}{
		{"a wrong password", push.TAXIIAuth{User: s.user, Password: "wrong-password-0123456789"}, writableCollection, failure.ExitAuth, "TILOOKUP_TAXII_PASSWORD"},
		{"a bearer token to a basic server", push.TAXIIAuth{Token: "taxii-token-0123456789abcdef"}, writableCollection, failure.ExitAuth, "401"},
		{"a read-only collection", push.TAXIIAuth{User: s.user, Password: s.password}, readOnlyCollection, failure.ExitAuth, "can_write is false"},
		{"an unknown collection", push.TAXIIAuth{User: s.user, Password: s.password}, "no such collection", failure.ExitNotFound, `no collection "no such collection"`},
	} {
		before := len(s.requests())
		r := taxiiPush(t, s, tc.auth, tc.collection, bundleFile, output.Table, push.TAXIIOptions{})
		if r.code != tc.code || !strings.Contains(r.errOut, tc.says) {
			t.Errorf("%s: exit %d, want %d, saying %q: %s", tc.name, r.code, tc.code, tc.says, r.errOut)
		}
		for _, req := range s.requests()[before:] {
			if strings.HasPrefix(req, "POST ") {
				t.Errorf("%s: sent %s", tc.name, req)
			}
		}
	}
	bear := newTAXIIStandIn(t)
	if r := taxiiPush(t, bear, bearer(bear), writableCollection, bundleFile, output.Table, push.TAXIIOptions{}); r.code != 0 {
		t.Errorf("bearer: exit %d: %s", r.code, r.errOut)
	}
	heldOnce(t, bear, objects)
}

// TestTAXIIPushCredentialsStayOnTheirHost: a redirect to another host
// carries no Authorization, so the other server refuses the push.
func TestTAXIIPushCredentialsStayOnTheirHost(t *testing.T) {
	other := newTAXIIStandIn(t)
	s := newTAXIIStandIn(t)
	s.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.srv.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	r := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{})
	if r.code != failure.ExitAuth {
		t.Errorf("exit %d, want 4 (the other host saw no credentials): %s", r.code, r.errOut)
	}
	host := strings.TrimPrefix(other.srv.URL, "http://")
	if !strings.Contains(r.errOut, "redirected the request to "+host+", another host, and the credentials were not sent there") || strings.Contains(r.errOut, "refused the credentials") {
		t.Errorf("the error does not say the request went to another host without the credentials: %s", r.errOut)
	}
	if len(other.requests()) == 0 || len(other.held()) != 0 {
		t.Errorf("the other host got %d requests and holds %d objects", len(other.requests()), len(other.held()))
	}
}

// TestTAXIIPushRetries: a 503, a reset connection and a 429 with
// Retry-After are tried again, as a search's are (the 429 after the server
// took the objects), and each object is held once.
func TestTAXIIPushRetries(t *testing.T) {
	s := newTAXIIStandIn(t)
	objects := readBundle(t)
	s.max = int64(len(objects[3].Raw)) * 2
	posts := 0
	s.fault = func(_ int, r *http.Request) (int, bool, http.Header) {
		if r.Method != http.MethodPost {
			return 0, false, nil
		}
		posts++
		switch posts {
		case 1:
			return http.StatusServiceUnavailable, false, nil
		case 2:
			return reset, false, nil
		case 4:
			return http.StatusTooManyRequests, true, http.Header{"Retry-After": {"7"}}
		}
		return 0, false, nil
	}
	r := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{Wait: time.Minute})
	if r.code != 0 || r.out != line(len(objects), len(objects), 0, 0) {
		t.Fatalf("exit %d, %q: %s", r.code, r.out, r.errOut)
	}
	if posts < 5 {
		t.Errorf("%d adds: the faults did not all fire", posts)
	}
	if !containsDuration(r.sleeps, 7*time.Second) {
		t.Errorf("pauses %v: the 429's Retry-After was not honoured", r.sleeps)
	}
	heldOnce(t, s, objects)
}

func containsDuration(ds []time.Duration, d time.Duration) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// TestTAXIIPushFaults cuts pushes off with a 500 at every add, the write
// taking effect or not, and runs each again: in the end every object is
// held once, and the push that stopped said how many were not sent.
func TestTAXIIPushFaults(t *testing.T) {
	objects := readBundle(t)
	for _, commit := range []bool{false, true} {
		cut := 0
		for at := 1; ; at++ {
			s := newTAXIIStandIn(t)
			s.max = int64(len(objects[3].Raw)) * 2
			posts := 0
			s.fault = func(_ int, r *http.Request) (int, bool, http.Header) {
				if r.Method == http.MethodPost {
					if posts++; posts == at {
						return http.StatusInternalServerError, commit, nil
					}
				}
				return 0, false, nil
			}
			first := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{Wait: time.Minute})
			if posts < at {
				break // every add was tried: no fault left to fire
			}
			cut++
			if first.code != failure.ExitService || !strings.Contains(first.errOut, "not sent; run the same push again") {
				t.Errorf("500 at add %d (commit %v): exit %d: %q %q", at, commit, first.code, first.out, first.errOut)
			}
			second := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{Wait: time.Minute})
			if second.code != 0 || second.out != line(len(objects), len(objects), 0, 0) {
				t.Errorf("500 at add %d (commit %v): the re-run: exit %d, %q: %s", at, commit, second.code, second.out, second.errOut)
			}
			heldOnce(t, s, objects)
		}
		if cut < 2 {
			t.Errorf("commit %v: %d pushes were cut off, want one at each of several adds", commit, cut)
		}
	}
}

func TestTAXIIPushExitCodes(t *testing.T) {
	s := newTAXIIStandIn(t)
	dir := t.TempDir()
	notBundle := filepath.Join(dir, "x.json")
	if err := os.WriteFile(notBundle, []byte(`{"Event": {"info": "x"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	opts := &TAXIIOptions{IO: ios, File: notBundle, Format: func() (output.Format, error) { return output.Table, nil },
		Client: func() (*push.TAXII, error) {
			t.Error("the client was built for an input that is not a bundle")
			return nil, nil
		}}
	if code := failure.ExitCode(runTAXII(context.Background(), opts)); code != failure.ExitUsage {
		t.Errorf("not a bundle: exit %d, want 2", code)
	}
	s.fault = func(int, *http.Request) (int, bool, http.Header) { return http.StatusInternalServerError, false, nil }
	if r := taxiiPush(t, s, bearer(s), writableCollection, bundleFile, output.Table, push.TAXIIOptions{}); r.code != failure.ExitService {
		t.Errorf("a failing server: exit %d, want 6", r.code)
	}
	if len(s.held()) != 0 {
		t.Error("a failed push wrote")
	}
}

// TestTAXIIStandInRefusesAsTheSpecSays: the stand-in refuses what
// medallion refuses, so that the tests above prove push's requests right.
func TestTAXIIStandInRefusesAsTheSpecSays(t *testing.T) {
	s := newTAXIIStandIn(t)
	s.max = 100
	objects := s.url() + "collections/" + writableCollection + "/objects/"
	envelope := `{"objects":[]}`
	for _, tc := range []struct {
		name, method, url, accept, contentType, auth, body string
		chunked                                            bool
		want                                               int
	}{
		{"no credentials", "GET", s.url(), "application/taxii+json;version=2.1", "", "-", "", false, http.StatusUnauthorized},
		{"a wrong token", "GET", s.url(), "application/taxii+json;version=2.1", "", "Bearer wrong", "", false, http.StatusUnauthorized},
		{"JSON's Accept", "GET", s.url(), "application/json", "", "", "", false, http.StatusNotAcceptable},
		{"TAXII 2.0's Accept", "GET", s.url(), "application/taxii+json;version=2.0", "", "", "", false, http.StatusNotAcceptable},
		{"an unknown collection", "POST", s.url() + "collections/nope/objects/", "application/taxii+json;version=2.1", "application/taxii+json;version=2.1", "", envelope, false, http.StatusNotFound},
		{"STIX's Content-Type", "POST", objects, "application/taxii+json;version=2.1", "application/stix+json;version=2.1", "", envelope, false, http.StatusUnsupportedMediaType},
		{"a read-only collection", "POST", s.url() + "collections/" + readOnlyCollection + "/objects/", "application/taxii+json;version=2.1", "application/taxii+json;version=2.1", "", envelope, false, http.StatusForbidden},
		{"a chunked body", "POST", objects, "application/taxii+json;version=2.1", "application/taxii+json;version=2.1", "", envelope, true, http.StatusBadRequest},
		{"a body over max_content_length", "POST", objects, "application/taxii+json;version=2.1", "application/taxii+json;version=2.1", "", `{"objects":[` + strings.Repeat(" ", 100) + `]}`, false, http.StatusRequestEntityTooLarge},
		{"an add", "POST", objects, "application/taxii+json;version=2.1", "application/taxii+json;version=2.1", "", envelope, false, http.StatusAccepted},
	} {
		var body *strings.Reader
		if tc.body != "" {
			body = strings.NewReader(tc.body)
		}
		req, err := http.NewRequest(tc.method, tc.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if body != nil {
			req.Body = readCloser{body}
			if !tc.chunked {
				req.ContentLength = int64(len(tc.body))
			} else {
				req.ContentLength = -1
			}
		}
		req.Header.Set("Accept", tc.accept)
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		switch tc.auth {
		case "":
			req.Header.Set("Authorization", "Bearer "+s.token)
		case "-":
		default:
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// TestTAXIIPushNeedsURLCollectionAndCredentials: exit 3 without a URL, a
// collection or credentials, and the lookup service's token is never
// taken for the TAXII server's.
func TestTAXIIPushNeedsURLCollectionAndCredentials(t *testing.T) {
	t.Setenv("TILOOKUP_CONFIG", filepath.Join(t.TempDir(), "config.yaml"))
	t.Setenv("TILOOKUP_TOKEN", "lookup-token-0123456789")
	for _, k := range []string{"TILOOKUP_TAXII_URL", "TILOOKUP_TAXII_COLLECTION", EnvTAXIIToken, EnvTAXIIUser, EnvTAXIIPassword} {
		t.Setenv(k, "")
	}
	ios, _, _, _ := iostreams.Test()
	try := func(want string) {
		t.Helper()
		f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}, Keyring: emptyKeyring{}}
		if _, err := taxiiClient(f); failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), want) {
			t.Errorf("want exit 3 saying %q: %v", want, err)
		}
	}
	try("no TAXII API root URL")
	t.Setenv("TILOOKUP_TAXII_URL", "https://taxii.example/api1/")
	try("no TAXII collection")
	t.Setenv("TILOOKUP_TAXII_COLLECTION", writableCollection)
	try("no TAXII token for taxii.example")
	t.Setenv(EnvTAXIIUser, "analyst")
	try("no TAXII password for taxii.example")
	t.Setenv(EnvTAXIIPassword, "basic-password-0123456789")
	t.Setenv("TILOOKUP_TAXII_URL", "http://taxii.example/api1/")
	try("plain http")
	t.Setenv("TILOOKUP_TAXII_URL", "https://taxii.example/api1/")
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}, Keyring: emptyKeyring{}}
	if _, err := taxiiClient(f); err != nil {
		t.Errorf("basic from the environment: %v", err)
	}
}

// TestTAXIIPushCollectionIDAsGiven: an id that a URL must escape reaches
// the server as it was given, escaped once.
func TestTAXIIPushCollectionIDAsGiven(t *testing.T) {
	s := newTAXIIStandIn(t)
	s.collections["team a:feeds"] = &standInCollection{canWrite: true, objects: map[string]int{}}
	objects := readBundle(t)
	r := taxiiPush(t, s, bearer(s), "team a:feeds", bundleFile, output.Table, push.TAXIIOptions{})
	if r.code != 0 || len(s.collections["team a:feeds"].objects) != len(objects) {
		t.Errorf("exit %d: %s", r.code, r.errOut)
	}
	c, err := api.New(api.Options{BaseURL: s.url()}, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = push.NewTAXII(c, "a/b", bearer(s), "").Push(context.Background(), &push.Bundle{Objects: objects}, push.TAXIIOptions{})
	if failure.ExitCode(err) != failure.ExitConfig {
		t.Errorf("a collection id with a slash: %v", err)
	}
}

// TestTAXIIPushInterrupted: Ctrl-C while push taxii sends, or while it
// follows pending statuses, ends it as an interrupted run: exit 130 and
// the "interrupted: …; to go on" line saying what was sent and what the
// server has pending, never the report of a --wait that ran out.
func TestTAXIIPushInterrupted(t *testing.T) {
	objects := readBundle(t)
	for _, tc := range []struct {
		name string
		// at is the request whose handling the interrupt comes during;
		// 0 interrupts the first pause between polls instead.
		at   int
		want string
	}{
		{"while sending", 3, "interrupted: 0 of " + strconv.Itoa(len(objects)) + " objects sent (0 succeeded, 0 failed, 0 pending)"},
		{"while following", 0, "interrupted: " + strconv.Itoa(len(objects)) + " of " + strconv.Itoa(len(objects)) + " objects sent (0 succeeded, 0 failed, " + strconv.Itoa(len(objects)) + " pending: the server goes on with them, status "},
	} {
		s := newTAXIIStandIn(t)
		s.pendingPolls = 1 << 30
		ctx, cancel := context.WithCancel(context.Background())
		s.fault = func(n int, r *http.Request) (int, bool, http.Header) {
			if n == tc.at {
				cancel()
				<-r.Context().Done() // the answer must not beat the cancel
			}
			return 0, false, nil
		}
		ios, _, out, errOut := iostreams.Test()
		opts := sleepingOpts(ios, s, time.Minute, func(ctx context.Context, _ time.Duration) error {
			cancel() // Ctrl-C during the first pause
			return ctx.Err()
		})
		err := runTAXII(ctx, opts)
		cancel()
		code := failure.ExitCode(err)
		if rep, ok := err.(*failure.Reported); ok {
			code = rep.Code
		}
		if code != failure.ExitInterrupted || !strings.HasPrefix(errOut.String(), tc.want) ||
			!strings.HasSuffix(errOut.String(), "; to go on, run the same push again (the server keeps one copy of each)\n") {
			t.Errorf("%s: exit %d (%v), %q %q, want %q…", tc.name, code, err, out, errOut, tc.want)
		}
		if strings.Contains(errOut.String(), "after --wait") {
			t.Errorf("%s: an interrupted push speaks of --wait: %q", tc.name, errOut)
		}
	}
}

// sleepingOpts is push taxii of bundleFile to the stand-in's writable
// collection, a table report, following the statuses for wait with sleep
// between polls.
func sleepingOpts(ios *iostreams.IOStreams, s *taxiiStandIn, wait time.Duration, sleep func(context.Context, time.Duration) error) *TAXIIOptions {
	return &TAXIIOptions{IO: ios, File: bundleFile, TAXIIOptions: push.TAXIIOptions{Wait: wait},
		Format: func() (output.Format, error) { return output.Table, nil },
		Client: func() (*push.TAXII, error) {
			c, err := api.New(api.Options{BaseURL: s.url(), Token: s.token, Timeout: 5 * time.Second}, false)
			if err != nil {
				return nil, err
			}
			tx := push.NewTAXII(c, writableCollection, bearer(s), "")
			tx.Sleep = sleep
			return tx, nil
		}}
}
