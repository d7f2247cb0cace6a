package export

// MarkdownCell is a string of data escaped for a GFM table cell (mdText),
// for the commands that write Markdown of another shape (watch).
func MarkdownCell(s string) string { return mdText(s, true) }

// MarkdownCodeCell is an indicator as a code span in a table cell (mdCode).
func MarkdownCodeCell(s string) string { return mdCode(s, true) }
