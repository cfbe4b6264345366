package reviewscript

import "fmt"

// An Error reports a review script line that cannot be read or played. Line is 0 for an
// error of the whole script (it cannot be read, or does not end in submit or reject).
type Error struct {
	// Name is the script's name.
	Name string
	// Line is the script's 1-based line, or 0.
	Line int
	// Err is what is wrong with the line, or the session's refusal of its action.
	Err error
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("review script %s: %v", e.Name, e.Err)
	}
	return fmt.Sprintf("review script %s, line %d: %v", e.Name, e.Line, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
