package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// reply is a response not yet written. Endpoints produce replies instead of
// writing directly, so that fault injection can cut, delay or wrap the very
// response the endpoint would have sent.
type reply struct {
	status int
	header http.Header
	body   []byte
}

const jsonType = "application/json; charset=utf-8"

func jsonReply(status int, v any) reply {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// detail_url and matched URLs carry '&'; clients show these strings,
	// so they should read as written rather than as \u0026.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return errorReply(http.StatusInternalServerError, "internal_error", "encoding the response failed: "+err.Error())
	}
	return reply{status: status, header: http.Header{"Content-Type": {jsonType}}, body: b.Bytes()}
}

// errorBody is the shape of every error the sandbox sends:
//
//	{"error":{"code":"bad_request","message":"...","status":400}}
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

func errorReply(status int, code, message string) reply {
	return jsonReply(status, errorBody{errorDetail{Code: code, Message: message, Status: status}})
}

// errorCode names a status for the error body's code field.
func errorCode(status int) string {
	switch status {
	case 400:
		return "bad_request"
	case 401:
		return "unauthorized"
	case 403:
		return "forbidden"
	case 404:
		return "not_found"
	case 405:
		return "method_not_allowed"
	case 429:
		return "rate_limited"
	case 500:
		return "internal_error"
	}
	if text := http.StatusText(status); text != "" {
		return strings.ReplaceAll(strings.ToLower(text), " ", "_")
	}
	return "http_" + strconv.Itoa(status)
}

// bodyAllowed reports whether HTTP lets a response of this status carry a
// body; net/http refuses writes for the others.
func bodyAllowed(status int) bool {
	return !(status >= 100 && status < 200 || status == http.StatusNoContent || status == http.StatusNotModified)
}

// write sends rep; contentType, when set, overrides the reply's own.
func (rep reply) write(w http.ResponseWriter, contentType string) int {
	h := w.Header()
	for k, v := range rep.header {
		h[k] = v
	}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	if bodyAllowed(rep.status) {
		h.Set("Content-Length", strconv.Itoa(len(rep.body)))
	}
	w.WriteHeader(rep.status)
	if bodyAllowed(rep.status) {
		_, _ = w.Write(rep.body)
	}
	return rep.status
}
