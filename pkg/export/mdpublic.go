package export

// MarkdownText, MarkdownCode and MarkdownLink are the escaping rules of this
// package's Markdown for other documents (pivot's), so that there is one
// place deciding how service text is made inert in Markdown. cell says the
// text goes into a table cell.
func MarkdownText(s string, cell bool) string { return mdText(s, cell) }

// MarkdownCode writes s as an inline code span (how indicators are shown).
func MarkdownCode(s string, cell bool) string { return mdCode(s, cell) }

// MarkdownLink links escaped text to an http(s) address, or gives the text
// alone for any other address.
func MarkdownLink(text, address string) string { return mdLink(text, address) }
