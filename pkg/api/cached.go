package api

import (
	"crypto/sha256"
	"encoding/hex"
)

// SearchBase is the search service's base URL as requests use it (path
// prefix included, no trailing slash): answers from one base are no
// answers for another.
func (c *Client) SearchBase() string { return c.base.String() }

// TokenFingerprint identifies the search token without revealing it: a
// cache keyed on it keeps one token's answers from another's, and the
// token never reaches the disk.
func (c *Client) TokenFingerprint() string {
	sum := sha256.Sum256([]byte("tilookup token fingerprint\x00" + c.opt.Token))
	return hex.EncodeToString(sum[:16])
}

// DecodeSearchRaw is what SearchRaw makes of a body: checked and counted,
// not decoded into fields. A cached answer goes through it so that it is
// exactly what the client would have returned.
func DecodeSearchRaw(body []byte) (*SearchResponse, error) { return decodeSearch(body, true) }
