package policy

// path returns why w is not a path inside the workspace from every
// directory the command may run in, symlinks resolved.
func (s *safeCheck) path(w *word) *unsafe {
	if w.glob && !w.params && !w.opaque {
		s.globsChecked++
		return s.globPath(w)
	}
	if !w.literal() {
		return notSafeText("not-literal", w.src+" is not a plain literal word")
	}
	p, ok := expandTilde(w, s.c.home)
	if !ok {
		return notSafe("outside-workspace", "%s is under a home directory Sidecar does not know", w.value)
	}
	if !s.complete {
		return notSafe("outside-workspace", "the cd commands lead to too many directories to follow")
	}
	if s.inside.has(p) {
		return nil
	}
	for _, dir := range s.cwds {
		if u := s.realPath(dir, p, w.value); u != nil {
			return u
		}
	}
	s.inside.add(p)
	return nil
}

// realPath returns why the path p, joined to the absolute dir unless it is
// absolute and written as shown, is not inside the workspace once its
// symlinks are resolved, or leads into (or holds) a guarded path.
func (s *safeCheck) realPath(dir, p, shown string) *unsafe {
	r, ok := s.res.realJoin(dir, p)
	if !ok {
		return notSafeText("outside-workspace", shown+" cannot be resolved")
	}
	for i := range s.c.guards {
		g := &s.c.guards[i]
		if within(g.path, r) {
			if s.intoGuard == nil {
				s.intoGuard, s.intoGuardWord = g, shown
			}
			return notSafeText("guarded-path", shown+" leads into "+g.shown)
		}
	}
	if !within(s.c.workspace, r) {
		return notSafeText("outside-workspace", shown+" is outside the workspace "+s.c.workspace)
	}
	// A workspace may hold a guarded path: reading a directory around it
	// could read the token.
	for i := range s.c.guards {
		if within(r, s.c.guards[i].path) {
			return notSafeText("guarded-path", shown+" holds "+s.c.guards[i].shown)
		}
	}
	return nil
}
