// Package sandbox is tilookup's built-in reference server: the two
// operations of the service's API (the search and the current-caller events),
// on loopback, over an embedded demo data
// set, with faults on request. Newcomers try the CLI against it with no
// account (`tilookup search --sandbox 44d88612fea8a8f36de82e1278abb02f`),
// script writers develop against it, and the project's end-to-end and fault
// tests use it as a real HTTP server.
//
// # Endpoints
//
// Search, GET /api/ti/resources/search?q=VALUE[&limit=N], on the first
// listener. Exact match of q across every resource, through an index of
// normalized values (hashes and e-mail addresses lower-case, CVE IDs
// upper-case, domains lower-case without a trailing dot, IP addresses in
// canonical form, URLs with a lower-case scheme and host). One result per
// matching resource; count is the number of matching records, preview the
// first limit of them. A value that is no indicator is still a 200, with
// detected_type "unknown", strategy "none", an unsupported_reason and no
// results. Besides the 200:
//
//	401  no bearer token, or an unknown one (WWW-Authenticate is set)
//	400  q missing, repeated, empty or blank, or longer than MaxQueryLen bytes;
//	     limit not an integer or outside MinLimit..MaxLimit (1..100, default 10);
//	     a query string that does not parse
//	500  q is InternalErrorQuery ("internal-error.sandbox.test"), or a fault
//	405  any method but GET (Allow: GET)
//	404  any other path
//
// detail_url points at /ti/resources/<resource>?q=VALUE on the same host as
// the request, which the sandbox serves too: all matching records of that
// resource, without a token, so that the link opens in a browser.
//
// Events, GET /api/events/me, on the second listener (the spec shows it on
// another host). The token comes as a bearer header or as the jwt cookie
// (EventsCookie); the header wins when both are sent.
//
//	200  DemoToken (or Options.Token): the caller's user, organization,
//	     events and subscriptions
//	401  no credentials ("a JWT cookie is required"), or an unknown token
//	403  NoPermissionToken
//	404  NoEventsToken (a caller with no event record)
//	405, 404 as for search
//
// NoPermissionToken and NoEventsToken search normally: the spec gives the
// search no 403 or 404, so they are valid accounts whose lack shows only on
// events.
//
// # Errors
//
// Every error the sandbox produces is JSON:
//
//	{"error":{"code":"bad_request","message":"...","status":400}}
//
// with code one of bad_request, unauthorized, forbidden, not_found,
// method_not_allowed, internal_error, bad_fault, rate_limited, or the status
// text in snake case for injected statuses (service_unavailable, ...).
//
// # Faults
//
// A fault spec is clauses separated by ';', each NAME or NAME=VALUE,
// names case-insensitive, spaces around clauses ignored. It comes from
// Options.Faults for every request, or from the X-Sandbox-Fault header
// (FaultHeader) for one request; the header replaces the server-wide spec,
// and "none" turns it off. A spec holds at most one action:
//
//	status=N, or just N   answer N (200..599) with a JSON error body
//	reset[=before|mid]    drop the connection with a TCP reset, before
//	                      any byte (default) or half-way through the body
//	truncate              full headers and Content-Length, half the body,
//	                      then an orderly close
//	malformed             200 with a body that is not valid JSON
//	html                  502 with an HTML error page (text/html)
//	huge=N                200 whose JSON object begins with N MiB of padding
//	empty                 200 with an empty body
//	array                 200 with the normal body wrapped in a JSON array
//	slow-drip[=D]         the normal response, one body byte every D (100ms)
//	redirect-loop         302 to the request's own URL, forever
//	redirect=URL          302 to URL (absolute http/https, no ';')
//	escape                200 search answer whose strings hold ESC, CSI,
//	                      OSC, C1 controls, U+202E and invalid UTF-8
//	html-latin1           503 with an ISO-8859-1 HTML page, non-UTF-8
//	                      bytes before its <title>
//	invisible             200 search answer whose strings hold zero-width
//	                      characters, a BOM, a soft hyphen and tag characters
//
// and any of these modifiers:
//
//	latency=D             wait D (a Go duration) before the headers; alone,
//	                      it delays the normal response
//	content-type=T        send Content-Type T; alone, relabels the normal
//	                      response
//	retry-after=S         Retry-After: S seconds; with no action, means 429
//	retry-after-date[=S]  Retry-After as an HTTP date S (default 1) seconds
//	                      ahead, rounded up to a whole second
//	times=N               fire for the first N requests of each
//	                      (spec, path, q), then answer normally: retries
//	                      recover
//	rate=P                fire only for queries whose FNV-1a 32-bit hash
//	                      of q is below P×2³² (see RateSelects):
//	                      deterministic, so a bulk test knows which fail
//
// Examples: "503", "status=503;times=2", "429;retry-after=1",
// "retry-after-date", "reset;rate=0.05", "latency=2s", "truncate;times=1".
// A spec that does not parse makes Start fail (Options.Faults) or the
// request answer 400 with code bad_fault (header). Faults act before
// authentication, as a failing proxy in front of the service would; actions
// that mangle a response (reset=mid, truncate, huge, array, slow-drip) mangle
// the one the endpoint would have sent, so they need a valid token to mangle
// a 200. FAULTS.md has the full reference.
package sandbox
