package policy

import (
	"path"
	"path/filepath"
	"strings"
)

// guard is a path no command may name: Sidecar's own state directory and
// files (catState) or a sensitive path from the policy file
// (catSensitive). A command names it when any word, or the part of a word
// after its first "=", leads inside it from a directory the command may run
// in; when the raw text holds it; or when a safe command's path argument
// leads into it through a symlink.
type guard struct {
	path     string // clean, absolute
	base     string // its last element, for a cheap first test
	category string
	shown    string // as configured, for reasons
}

func newGuard(p, category, shown string) guard {
	return guard{path: p, base: filepath.Base(p), category: category, shown: shown}
}

// mayName reports whether the text v could name a path inside g: reaching
// inside a directory from outside it always spells out its last element.
// (A cwd already inside g is caught by rawGuard.)
func (g *guard) mayName(v string) bool {
	return g.base == "/" || g.base == "." || strings.Contains(v, g.base)
}

// rawGuard returns the guard whose path the raw command text names,
// absolutely or under ~, $HOME or ${HOME}, or that holds one of cwds. It
// holds even where the command does not parse.
func (c *Classifier) rawGuard(command string, cwds ...string) *guard {
	for i := range c.guards {
		g := &c.guards[i]
		for _, cwd := range cwds {
			if within(g.path, cwd) {
				return g
			}
		}
		if !g.mayName(command) {
			continue
		}
		if containsPath(command, g.path) {
			return g
		}
		if c.home != "" && g.path != c.home && within(c.home, g.path) {
			rel := strings.TrimPrefix(g.path, c.home+"/")
			for _, pre := range []string{"~/", "$HOME/", "${HOME}/"} {
				if containsPath(command, pre+rel) {
					return g
				}
			}
		}
	}
	return nil
}

// guardNamed returns the guard that the word w, or the part after its
// first =, names from one of the directories the command may run in.
func (d *denyCheck) guardNamed(w *word) *guard {
	if len(d.c.guards) == 0 {
		return nil
	}
	v := w.value
	var cands [2]string
	for i := range d.c.guards {
		g := &d.c.guards[i]
		if w.glob && d.globMayName(w, g.path) {
			return g
		}
		if !g.mayName(v) {
			continue
		}
		if cands[0] == "" {
			cands[0] = v
			if _, after, ok := strings.Cut(v, "="); ok {
				cands[1] = after
			}
		}
		for _, v := range cands {
			if p, ok := d.knownPath(v); ok && d.insideFromCwds(g.path, p) {
				return g
			}
		}
	}
	return nil
}

// globMayName reports whether the glob w could expand to root or a path
// inside it, from a directory the command may run in: its pattern's
// leading components match all of root's. As in bash, only a literal dot
// matches the dot that starts a name.
func (d *denyCheck) globMayName(w *word, root string) bool {
	if !w.known() {
		return false
	}
	pat := w.pattern
	if w.tilde {
		if d.c.home == "" {
			return false
		}
		pat = escapePattern(d.c.home) + pat[1:]
	}
	var full []string
	if strings.HasPrefix(pat, "/") {
		full = []string{path.Clean(pat)}
	} else {
		for _, dir := range d.cwds {
			full = append(full, path.Clean(escapePattern(dir)+"/"+pat))
		}
	}
	rootParts := strings.Split(root, "/")
	for _, f := range full {
		parts := strings.Split(f, "/")
		if len(parts) < len(rootParts) {
			continue
		}
		matched := true
		for i := 0; i < len(rootParts) && matched; i++ {
			ok, err := path.Match(parts[i], rootParts[i])
			dotted := strings.HasPrefix(rootParts[i], ".") && !strings.HasPrefix(parts[i], ".")
			matched = ok && err == nil && !dotted
		}
		if matched {
			return true
		}
	}
	return false
}

// knownPath returns the part of the path text v that is known: up to the
// last / before a value only bash knows, with ~ expanded.
func (d *denyCheck) knownPath(v string) (string, bool) {
	if i := strings.Index(v, unknown); i >= 0 {
		v = v[:strings.LastIndexByte(v[:i], '/')+1]
	}
	if v == "" {
		return "", false
	}
	if rest, ok := strings.CutPrefix(v, "~"); ok && (rest == "" || rest[0] == '/') {
		if d.c.home == "" {
			return "", false
		}
		v = d.c.home + rest
	}
	return v, true
}

// insideFromCwds reports whether the path p, joined with any directory
// the command may run in and cleaned, lies inside root.
func (d *denyCheck) insideFromCwds(root, p string) bool {
	if filepath.IsAbs(p) {
		return within(root, cleanPath(p))
	}
	for _, dir := range d.cwds {
		if within(root, cleanPath(dir+"/"+p)) {
			return true
		}
	}
	return false
}

// containsPath reports whether p occurs in s followed by a character that
// cannot continue a file name, or by the end.
func containsPath(s, p string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], p)
		if i < 0 {
			return false
		}
		end := off + i + len(p)
		if end == len(s) || !isNameByte(s[end]) {
			return true
		}
		off += i + 1
	}
}

func isNameByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
