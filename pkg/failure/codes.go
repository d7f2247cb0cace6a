package failure

// Code is one exit code and what it means to a user or a script.
type Code struct {
	Code    int
	Meaning string
}

// Codes is the table of exit codes, as the interface contract has it. The
// help topic exit-codes and the man pages' EXIT STATUS are made from it.
func Codes() []Code {
	return []Code{
		{ExitOK, "success"},
		{ExitNoMatch, "nothing matched: with search -e/--exit-status, no value at all matched (like grep: one match among many values is success); triage and enrich always work this way"},
		{ExitUsage, "usage error, invalid input, or 400 from the service"},
		{ExitConfig, "configuration problem: no base URL, no token, or a base URL that would leak the token"},
		{ExitAuth, "authentication or permission refused (401, 403)"},
		{ExitNotFound, "not found (404)"},
		{ExitService, "service or network failure: 5xx, timeout, connection error, a response that cannot be read"},
		{ExitInterrupted, "interrupted (Ctrl-C, SIGTERM)"},
	}
}
