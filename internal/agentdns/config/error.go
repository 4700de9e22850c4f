package config

import "fmt"

// Error is one problem in a config file, with where it is.
type Error struct {
	File         string
	Line, Column int
	// Field is the path to the value, e.g. "policies[0].mode".
	Field   string
	Problem string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
	}
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", loc, e.Problem)
	}
	return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Problem)
}
