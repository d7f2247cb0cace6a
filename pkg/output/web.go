package output

import (
	"net/url"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// WebURL picks the page `search --web` opens from a search response: the
// detail_url of the result whose resource (or label) is resource, compared
// without case, or, when resource is "", of the first result that has one.
// Only an absolute http or https URL is returned, so that a server cannot
// make the browser launcher run something else. Errors: no result at all or
// no such resource (failure.NoMatch, exit 1, naming the resources there
// are), and a result without a usable detail_url (failure.Decode).
func WebURL(resp *api.SearchResponse, resource string) (string, error) {
	if resp == nil || len(resp.Results) == 0 {
		q := ""
		if resp != nil {
			q = " for " + sanitize.String(resp.Query)
		}
		return "", failure.New(failure.NoMatch, "no matches%s: nothing to open", q)
	}
	res, err := pickResult(resp.Results, resource)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(strings.TrimSpace(res.DetailURL))
	if res.DetailURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		name := sanitize.String(res.Resource)
		if res.DetailURL == "" {
			return "", failure.New(failure.Decode, "the %s result has no detail_url to open", name)
		}
		return "", failure.New(failure.Decode, "the %s result's detail_url %q is not an http(s) address; not opening it", name, sanitize.String(res.DetailURL))
	}
	return u.String(), nil
}

func pickResult(results []api.Result, resource string) (api.Result, error) {
	if resource == "" {
		for _, r := range results {
			if r.DetailURL != "" {
				return r, nil
			}
		}
		return results[0], nil
	}
	names := make([]string, 0, len(results))
	for _, r := range results {
		if strings.EqualFold(r.Resource, resource) || strings.EqualFold(r.Label, resource) {
			return r, nil
		}
		names = append(names, sanitize.String(r.Resource))
	}
	return api.Result{}, failure.New(failure.NoMatch, "no result from resource %q: the matches are in %s", sanitize.String(resource), strings.Join(names, ", "))
}
