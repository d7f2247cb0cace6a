package credentials

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/failure"
)

// Size limits of keyring entries.
//
// Windows Credential Manager holds 2560 bytes per secret; the macOS keychain
// takes about 3000 once go-keyring has base64-encoded the value and quoted the
// whole command; the Secret Service has no small limit. One entry is kept to
// MaxEntrySize on every OS so that a token stored on Linux behaves the same
// as on a Mac. A longer token (JWTs with many claims easily pass 4 KB) is
// split over several entries and reassembled on read; see split.
const (
	MaxEntrySize = 2048
	// MaxTokenSize is far above any bearer token seen in practice and
	// below what HTTP servers accept in a header (8-16 KB is common, some
	// allow 32 KB); anything larger is almost surely a pasted file.
	MaxTokenSize = 32 << 10

	// chunkPrefix starts the first entry of a split token. The first entry
	// (user "host") carries the part count, the total length and a
	// checksum, so a reader can tell a complete token from a partial one
	// and never hands out a truncated token. Parts 2..n are stored under
	// users "host#2".."host#n"; '#' never occurs in a host key.
	chunkPrefix = "tilookup-chunked:v1:"
	// headerReserve is the room kept in the first entry for the header,
	// which is at most len(chunkPrefix)+2+1+5+1+16+1 = 46 bytes.
	headerReserve = 64
	maxChunks     = 1 + (MaxTokenSize+MaxEntrySize-1)/MaxEntrySize + 1
)

// normalizeToken trims the token and rejects what cannot be a bearer token.
// The token itself never goes into the message, only where the problem is.
func normalizeToken(token string) (string, error) {
	t := strings.TrimSpace(token)
	if t == "" {
		return "", invalidToken("the token is empty")
	}
	if !utf8.ValidString(t) {
		return "", invalidToken("the token is not valid UTF-8 text")
	}
	i := 0
	for _, r := range t {
		i++
		// Format characters (zero-width space, BOM) come along with
		// copy and paste and are as invisible as a space.
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", invalidToken(fmt.Sprintf("the token has whitespace or a control character inside, at character %d", i))
		}
	}
	if i := strings.IndexFunc(t, unsafeInHeader); i >= 0 {
		return "", newError(failure.Usage, ErrInvalidToken, nil,
			fmt.Sprintf("the token has %s at character %d, which cannot be sent in an HTTP header or cookie unchanged",
				describeChar(t, i), utf8.RuneCountInString(t[:i])+1),
			"check that only the token was copied, without quotes or separators")
	}
	if strings.HasPrefix(t, chunkPrefix) {
		return "", invalidToken("the token starts with tilookup's own keyring marker")
	}
	if len(t) > MaxTokenSize {
		return "", newError(failure.Usage, ErrTokenTooLarge, nil,
			fmt.Sprintf("the token is %d bytes, more than the %d bytes tilookup stores", len(t), MaxTokenSize),
			"check that only the token was pasted, or set TILOOKUP_TOKEN")
	}
	return t, nil
}

// unsafeInHeader reports a character that net/http would send mangled or
// not at all: anything outside printable ASCII, and the four characters a
// cookie value cannot hold (RFC 6265 cookie-octet). Such a "token" is
// either pasted junk or would be rejected by the service anyway.
func unsafeInHeader(r rune) bool {
	return r < 0x21 || r > 0x7e || r == '"' || r == ',' || r == ';' || r == '\\'
}

func describeChar(t string, i int) string {
	r, _ := utf8.DecodeRuneInString(t[i:])
	if r > 0x7e {
		return "a non-ASCII character"
	}
	return fmt.Sprintf("%q", r)
}

func invalidToken(msg string) error {
	return newError(failure.Usage, ErrInvalidToken, nil, msg,
		"pass the token alone, with no spaces or line breaks inside")
}

// Mask returns a form of token that is safe to print in `auth status`: a
// fixed run of asterisks and, for long tokens, the last few characters, so a
// user can tell two tokens apart without the output being of any use to
// whoever reads it. At most one eighth of the token is shown, at most 4
// characters, and nothing at all below 12 characters. The asterisks do not
// vary with the length, which would otherwise leak too.
func Mask(token string) string {
	const stars = "****"
	t := []rune(strings.TrimSpace(token))
	if len(t) < 12 {
		return stars
	}
	show := min(len(t)/8, 4)
	return stars + string(t[len(t)-show:])
}

// split turns a token into keyring entries, first entry first.
func split(token string) []string {
	if len(token) <= MaxEntrySize {
		return []string{token}
	}
	var parts []string
	rest := token
	size := MaxEntrySize - headerReserve
	for rest != "" {
		n := min(size, len(rest))
		for n < len(rest) && !utf8.RuneStart(rest[n]) {
			n-- // never cut a character in two
		}
		parts = append(parts, rest[:n])
		rest = rest[n:]
		size = MaxEntrySize
	}
	parts[0] = chunkHeader(len(parts), token) + parts[0]
	return parts
}

func chunkHeader(n int, token string) string {
	return chunkPrefix + strconv.Itoa(n) + ":" + strconv.Itoa(len(token)) + ":" + checksum(token) + ":"
}

// checksum is a truncated SHA-256: enough to notice parts from two different
// logins mixed up, and it says nothing useful about the token.
func checksum(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:8])
}

type chunkInfo struct {
	n, size int
	sum     string
	first   string
}

// parseHeader reads the first entry of a split token; ok is false for an
// ordinary, unsplit token.
func parseHeader(v string) (info chunkInfo, ok bool, err error) {
	rest, found := strings.CutPrefix(v, chunkPrefix)
	if !found {
		return info, false, nil
	}
	f := strings.SplitN(rest, ":", 4)
	if len(f) != 4 {
		return info, true, fmt.Errorf("malformed header")
	}
	info.n, err = strconv.Atoi(f[0])
	if err != nil || info.n < 2 || info.n > maxChunks {
		return info, true, fmt.Errorf("bad part count")
	}
	info.size, err = strconv.Atoi(f[1])
	if err != nil || info.size < 1 || info.size > MaxTokenSize {
		return info, true, fmt.Errorf("bad length")
	}
	info.sum, info.first = f[2], f[3]
	return info, true, nil
}

func chunkUser(host string, i int) string {
	if i == 1 {
		return host
	}
	return host + "#" + strconv.Itoa(i)
}
