package policy

import "slices"

// maxPassed bounds what a passedSet remembers; past it, a check simply
// runs again, as it would without the set.
const maxPassed = 32

// passedSet remembers, within one Classify call, the paths a check found
// nothing wrong with, so that a path the command names again (the same
// file in several of its commands) is not checked again. It serves only
// checks whose outcome depends on nothing but the path and what stays
// fixed for the call: the directories the command may run in, and the
// call's resolver, which answers the same path the same way every time.
type passedSet struct {
	paths []string
}

func (s *passedSet) has(p string) bool { return slices.Contains(s.paths, p) }

func (s *passedSet) add(p string) {
	if len(s.paths) < maxPassed {
		s.paths = append(s.paths, p)
	}
}
