package policy

import (
	"path"
	"strings"
)

// maxGlobNames is the most entries a directory may have for a glob in it
// to be checked: every entry is, whatever the pattern.
const maxGlobNames = 256

// globPath returns why the glob w, a file operand, could expand to a path
// outside the workspace (or into a guarded one), or nil. Only a glob in the
// last path component is followed: the directory before it must be
// literal. Every entry of that directory the pattern may match is
// checked (see mayMatch: where in doubt, it may).
// The pattern itself is checked too, for the case nothing matches and bash
// passes it as written.
func (s *safeCheck) globPath(w *word) *unsafe {
	if s.c.fs == nil {
		return notSafe("not-literal", "%s is a glob and Sidecar reads no directories", w.src)
	}
	dirPat, lastPat, found := cutLast(w.pattern, "/")
	if !found {
		lastPat = w.pattern
	}
	if found && hasGlobMeta(dirPat) {
		return notSafe("not-literal", "%s has a glob before its last /", w.src)
	}
	dir, last, _ := cutLast(w.value, "/")
	switch {
	case !found:
		dir, last = ".", w.value
	case dir == "":
		dir = "/"
	}
	if w.tilde {
		if s.c.home == "" {
			return notSafe("outside-workspace", "%s is under a home directory Sidecar does not know", w.value)
		}
		dir = s.c.home + strings.TrimPrefix(dir, "~")
	}
	if !s.complete {
		return notSafe("outside-workspace", "the cd commands lead to too many directories to follow")
	}
	for _, cwd := range s.cwds {
		abs := joinPath(cwd, dir)
		if u := s.realPath(abs, last, w.value); u != nil {
			return u
		}
		real, ok := s.res.real(abs)
		if !ok {
			return notSafe("outside-workspace", "%s cannot be resolved", w.value)
		}
		names, err := s.c.fs.ReadDirNames(real, maxGlobNames)
		switch {
		case err != nil:
			continue // nothing to match: bash passes the pattern, checked above
		case len(names) > maxGlobNames:
			return notSafe("not-literal", "%s matches in a directory of more than %d entries", w.src, maxGlobNames)
		}
		for _, name := range names {
			if !mayMatch(lastPat, name) {
				continue
			}
			if u := s.realPath(real, name, w.value); u != nil {
				return u
			}
		}
	}
	return nil
}

// mayMatch reports whether bash could match name with the pattern pat.
// For * and ? patterns path.Match agrees with bash, except that it lets
// them match a leading dot, which only checks more names; a bracket
// expression ([!a], [[:alpha:]], locale ranges) is not reimplemented, so
// it may match anything.
func mayMatch(pat, name string) bool {
	if strings.Contains(pat, "[") {
		return true
	}
	ok, err := path.Match(pat, name)
	return ok || err != nil
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// hasGlobMeta reports whether the path.Match pattern p has an unescaped
// *, ? or [.
func hasGlobMeta(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}
