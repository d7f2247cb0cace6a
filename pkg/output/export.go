package output

// RecordError is a failure to render one record (a --jq expression that
// fails on this value's JSON): the caller may report it and go on with the
// next record, as jq itself does.
type RecordError struct{ Err error }

func (e *RecordError) Error() string { return e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }
