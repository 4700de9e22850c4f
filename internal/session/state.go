package session

import "errors"

// ErrInvalidName reports a session name outside [A-Za-z0-9._-]{1,128}, or
// "." or "..".
var ErrInvalidName = errors.New("invalid session name")

// maxNameLen is the longest session name, in bytes.
const maxNameLen = 128

// State is what persists between the commands of one session.
type State struct {
	// Cwd is the absolute directory the last command ended in; "" when
	// none is known yet.
	Cwd string `json:"cwd"`
	// Exports are the variables that persist, already filtered by
	// FilterExports.
	Exports map[string]string `json:"exports,omitempty"`
}

// ValidName reports whether name may name a session: 1 to 128 bytes of
// [A-Za-z0-9._-], and not "." or "..". Such a name is safe as a file name.
func ValidName(name string) bool {
	if name == "" || len(name) > maxNameLen || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}
