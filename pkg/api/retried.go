package api

import "net/http"

// Retried tells the HTTP statuses a request is tried again for (with
// --retries, honouring Retry-After): the service asking for a slower pace
// (429), and a gateway or the service saying it cannot answer now (502,
// 503, 504). A 500 is a fault that asking again does not mend. The
// retries key's help names the same statuses; a test keeps them together.
func Retried(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}
