package sandbox

import (
	"net/http"
)

// EventsCookie is the cookie the events endpoint reads the token from when
// no Authorization header is sent (the spec: "a JWT cookie is required").
const EventsCookie = "jwt"

// events answers GET /api/events/me. The token may come as a bearer header
// or as the jwt cookie; the header wins when both are sent, as it is the
// more deliberate of the two.
func (h *handler) events(r *http.Request) reply {
	tok, ok := bearerToken(r)
	if !ok {
		if c, err := r.Cookie(EventsCookie); err == nil && c.Value != "" {
			tok, ok = c.Value, true
		}
	}
	if !ok {
		rep := errorReply(http.StatusUnauthorized, "unauthorized",
			"not authenticated: a JWT cookie is required (send the token as the "+EventsCookie+" cookie or as Authorization: Bearer <token>)")
		rep.header.Set("WWW-Authenticate", `Bearer realm="tilookup-sandbox"`)
		return rep
	}
	switch h.identify(tok) {
	case callerOK:
		ds, err := loadDataset()
		if err != nil {
			return errorReply(http.StatusInternalServerError, "internal_error", err.Error())
		}
		return reply{status: http.StatusOK, header: http.Header{"Content-Type": {jsonType}}, body: ds.eventsMe}
	case callerNoPermission:
		return errorReply(http.StatusForbidden, "forbidden", "this account has no permission to read events")
	case callerNoEvents:
		return errorReply(http.StatusNotFound, "not_found", "no event record exists for this caller")
	}
	rep := errorReply(http.StatusUnauthorized, "unauthorized", "invalid or expired token"+h.demoHint())
	rep.header.Set("WWW-Authenticate", `Bearer realm="tilookup-sandbox", error="invalid_token"`)
	return rep
}
