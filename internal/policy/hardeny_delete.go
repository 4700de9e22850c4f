package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// rm denies a recursive (or --no-preserve-root) rm of a protected target.
// A word whose value is unknown might be -r.
func (d *denyCheck) rm(args []word) *denial {
	recursive := false
	var targets []word
	opts := true
	for _, a := range args {
		v := a.value
		switch {
		case !a.known():
			recursive = true
			targets = append(targets, a)
		case opts && v == "--":
			opts = false
		case opts && strings.HasPrefix(v, "--"):
			// GNU accepts any unambiguous prefix of a long option.
			if len(v) > 2 && (strings.HasPrefix("--recursive", v) || len(v) > 3 && strings.HasPrefix("--no-preserve-root", v)) {
				recursive = true
			}
		case opts && len(v) > 1 && v[0] == '-':
			if strings.ContainsAny(v[1:], "rR") {
				recursive = true
			}
		default:
			targets = append(targets, a)
		}
	}
	if !recursive {
		return nil
	}
	for i := range targets {
		if what, ok := d.protected(&targets[i]); ok {
			return &denial{category: catRecursiveDelete, what: "rm -r " + what}
		}
	}
	return nil
}

// findDelete denies find -delete, or an -exec of rm, under a protected
// starting point, and checks every -exec command line as a command of its own.
func (d *denyCheck) findDelete(p *program, args []word, depth int) *denial {
	i := 0
options:
	for i < len(args) {
		switch v := args[i].value; {
		case v == "-H" || v == "-L" || v == "-P":
			i++
		case v == "-D" || v == "-O":
			i += 2
		case strings.HasPrefix(v, "-O"):
			i++
		default:
			break options
		}
	}
	var starts []word
	for i < len(args) {
		v := args[i].value
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			break
		}
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 {
		starts = []word{litWord(".")}
	}
	deletes := false
	expr := args[i:]
	for j := 0; j < len(expr); j++ {
		switch expr[j].value {
		case "-delete":
			deletes = true
		case "-exec", "-execdir", "-ok", "-okdir":
			k := j + 1
			for k < len(expr) && expr[k].value != ";" && expr[k].value != "+" {
				k++
			}
			inner := expr[j+1 : k]
			if len(inner) > 0 {
				switch commandName(&inner[0]) {
				case "rm", "shred", "unlink", "rmdir":
					deletes = true
				}
				if depth < maxNestedPrograms {
					if x := d.argv(p, inner, nil, depth+1); x != nil {
						return x
					}
				}
			}
			j = k
		}
	}
	if !deletes {
		return nil
	}
	for i := range starts {
		if what, ok := d.protected(&starts[i]); ok {
			return &denial{category: catRecursiveDelete, what: "find " + what + " -delete"}
		}
	}
	return nil
}

// protectedDirs returns the directories whose recursive deletion is
// hard-denied: the root, the system directories and home, if known.
func protectedDirs(home string) []string {
	dirs := []string{
		"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root",
		"/sbin", "/srv", "/sys", "/usr", "/var", "/System", "/Library", "/Applications", "/Users", "/private",
	}
	if home != "" {
		dirs = append(dirs, home)
	}
	return dirs
}

// protected reports whether w names /, a system directory, the home
// directory, or everything inside one of them (dir/*).
func (d *denyCheck) protected(w *word) (string, bool) {
	if isHomeParam(w.node) {
		return w.display(), true
	}
	if !w.known() {
		return "", false
	}
	v, pat := w.value, w.pattern
	if w.tilde {
		rest := v[1:]
		switch rest {
		case "", "/", "/.", "/*":
			return w.display(), true
		}
		if d.c.home == "" {
			return "", false
		}
		v, pat = d.c.home+rest, escapePattern(d.c.home)+pat[1:]
	}
	dirs := d.c.protected
	for _, cwd := range d.cwds {
		if !w.glob {
			full := cleanPath(joinPath(cwd, v))
			for _, dir := range dirs {
				if full == dir {
					return w.display(), true
				}
			}
			continue
		}
		fullPat := pat
		if !strings.HasPrefix(pat, "/") {
			fullPat = escapePattern(cwd) + "/" + pat
		}
		fullPat = path.Clean(fullPat)
		for _, dir := range dirs {
			// The pattern matches the directory itself, or what is in it.
			if m, _ := path.Match(fullPat, dir); m {
				return w.display(), true
			}
			if m, _ := path.Match(fullPat, path.Join(dir, "x")); m && dir != "/" {
				return w.display(), true
			}
		}
	}
	return "", false
}

// isHomeParam reports whether w is $HOME or ${HOME}, maybe quoted, maybe
// followed by /, /. or /*: the home directory even when its value is not
// known to the classifier.
func isHomeParam(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	var parts []syntax.WordPart
	for _, p := range w.Parts {
		if dq, ok := p.(*syntax.DblQuoted); ok {
			parts = append(parts, dq.Parts...)
			continue
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	if !ok || !isSimpleParam(pe) || pe.Param.Value != "HOME" {
		return false
	}
	var rest strings.Builder
	for _, p := range parts[1:] {
		switch p := p.(type) {
		case *syntax.Lit:
			rest.WriteString(p.Value)
		case *syntax.SglQuoted:
			rest.WriteString(p.Value)
		default:
			return false
		}
	}
	switch rest.String() {
	case "", "/", "/.", "/*":
		return true
	}
	return false
}
