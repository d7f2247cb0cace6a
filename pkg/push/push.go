// Package push hands a finding to the team's platform: a MISP event (as
// `-o misp` writes it) to a MISP instance, a STIX bundle (as `-o stix`
// writes it) to a TAXII 2.1 collection. A push is idempotent: what the
// platform already has is never duplicated, so a push cut off by a fault
// is completed by running it again.
package push

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
)

// Sender makes one request with the lookup client's retries, timeouts and
// redirect rules (api.Client): 429, 502, 503, 504, time-outs and resets
// are tried again, honouring Retry-After, and credentials never follow a
// redirect to another host.
type Sender interface {
	Send(ctx context.Context, op, method string, u *url.URL, header http.Header, payload []byte) ([]byte, error)
	URL(path string) *url.URL
}

// Unsent is how many items a fault left unsent: a re-run sends them.
func (r *MISPResult) Unsent() int { return r.NotSent }

// Refused is how many items MISP refused; they are named.
func (r *MISPResult) Refused() int { return len(r.Failed) }

// Unsent is how many objects a fault left unsent: a re-run sends them.
func (r *TAXIIResult) Unsent() int { return r.NotSent }

// Refused is how many objects failed; they are named.
func (r *TAXIIResult) Refused() int { return r.FailureCount }

// status is the HTTP status of an answer that was an error, 0 when err is
// no answer at all (a time-out, a reset).
func status(err error) int {
	var ae *api.APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// clientError is a 4xx other than 429: the platform saying no to this
// request, which asking again will not change.
func clientError(err error) bool {
	s := status(err)
	return s >= 400 && s < 500 && s != http.StatusTooManyRequests
}

// refusedCredentials is err, an answer refusing the credentials, made an
// authentication failure (exit 4) whose hint names the platform's own
// settings rather than the lookup service's. An answer from another host,
// which a redirect led to, is not about the credentials, which were not
// sent there: it says so (secret: "the key was"), and which setting to
// fix (setting, such as misp_url).
func refusedCredentials(err error, hint, platform, secret, setting string) error {
	var ae *api.APIError
	if !errors.As(err, &ae) {
		return err
	}
	refused := *ae
	refused.Kind = failure.Auth
	refused.Hint = hint
	if ae.RedirectedTo != "" {
		refused.Message = fmt.Sprintf("%s redirected the request to %s, another host, and %s not sent there; it answered: %s",
			platform, ae.RedirectedTo, secret, ae.Message)
		refused.Hint = "point " + setting + " at the host that answers, " + ae.RedirectedTo + " if you trust it"
	}
	return &refused
}

// reason is what the platform said about a refused request: its status
// and its own words.
func reason(err error) string {
	var ae *api.APIError
	if errors.As(err, &ae) {
		if ae.Message != "" {
			return fmt.Sprintf("%d: %s", ae.Status, ae.Message)
		}
		return fmt.Sprintf("%d %s", ae.Status, http.StatusText(ae.Status))
	}
	return err.Error()
}

// validUUID reports whether s is a UUID in its 8-4-4-4-12 hex form. It is
// written out rather than a regexp: a package-level regexp would be
// compiled in every process, each TAB of completion included.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// validSTIXID reports whether s is a STIX identifier: type--UUID, the
// type in lower case letters, digits and hyphens.
func validSTIXID(s string) bool {
	typ, id, ok := strings.Cut(s, "--")
	if !ok || typ == "" || typ[0] == '-' {
		return false
	}
	for i := 0; i < len(typ); i++ {
		c := typ[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return validUUID(id)
}
