package ioc

// ExtractString is ExtractReader for a short text already in memory (one
// field of a preview record, say), on the caller's goroutine: pivot calls it
// for every field of every answer, where starting ExtractReader's workers
// would cost more than the extraction.
func ExtractString(s string, fn func(Indicator) error) error {
	return extractText([]byte(s), fn)
}
