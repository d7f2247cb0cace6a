package output

// CSVCell neutralises one CSV cell against formula injection, for commands
// that write their own CSV (detect, extract).
func CSVCell(s string) string { return neutralizeCSV(s) }
