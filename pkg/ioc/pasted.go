package ioc

// splitPastedURL is splitURL for a single pasted value: a URL with an
// explicit scheme and a valid host whose path or query holds plain spaces
// (as copied from a report or a browser's address bar) is still a URL. Free
// text extraction does not use it: there a space ends the URL.
func splitPastedURL(s string) (urlParts, bool) {
	if p, ok := splitURL(s); ok {
		return p, true
	}
	start := schemeEnd(s)
	if start <= 0 {
		return urlParts{}, false
	}
	end := start + 3
	for end < len(s) && s[end] != '/' && s[end] != '?' && s[end] != '#' {
		end++
	}
	if end == len(s) {
		return urlParts{}, false
	}
	for i := end; i < len(s); i++ {
		if (s[i] < ' ' || s[i] == 0x7f) || (s[i] == ' ' && (i == end || i == len(s)-1)) {
			return urlParts{}, false
		}
	}
	return splitURL(s[:end])
}
