package policy

import (
	"path/filepath"
	"slices"
	"strings"
)

// within reports whether the clean path p is root or lies under it.
func within(root, p string) bool {
	return p == root || root == "/" ||
		len(p) > len(root) && p[len(root)] == '/' && p[:len(root)] == root
}

// cleanPath is filepath.Clean, without its work for an absolute path that
// is clean already (no empty, . or .. element, no trailing /), as nearly
// every path the classifier joins from a clean directory and a plain name
// is.
func cleanPath(p string) string {
	if p == "/" {
		return p
	}
	if p == "" || p[0] != '/' || p[len(p)-1] == '/' || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..") ||
		strings.Contains(p, "//") || strings.Contains(p, "/./") || strings.Contains(p, "/../") {
		return filepath.Clean(p)
	}
	return p
}

// joinPath puts a relative p under dir without cleaning, so that a later
// symlink resolution sees every component.
func joinPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return dir + "/" + p
}

// expandTilde returns the path w names, with a leading ~ replaced by home.
// It reports false when w starts with ~ and home is unknown.
func expandTilde(w *word, home string) (string, bool) {
	if !w.tilde {
		return w.value, true
	}
	if home == "" {
		return "", false
	}
	return home + w.value[1:], true
}

// closeCwds returns the directories a command may run in, as bash spells
// them in $PWD: the starts, and what each cd target leads to from a directory
// already found, for as many rounds as there are cd commands (none of them
// runs twice: a cd in a loop is never safe). next appends to out the
// directories a target leads to from dir, or none to not follow it.
// complete is false when more than limit directories turn up.
func closeCwds(starts []string, targets []string, next func(dir, target string, out []string) []string, limit int) (dirs []string, complete bool) {
	dirs = make([]string, 0, min(limit, len(starts)+2*len(targets)))
	for _, s := range starts {
		if !slices.Contains(dirs, s) {
			dirs = append(dirs, s)
		}
	}
	// A target written twice leads nowhere new within a round: the first
	// time has added all it leads to. It still counts as a round.
	distinct := make([]string, 0, len(targets))
	for _, t := range targets {
		if !slices.Contains(distinct, t) {
			distinct = append(distinct, t)
		}
	}
	var found []string
	for range targets {
		before := len(dirs)
		for _, t := range distinct {
			for _, dir := range dirs[:before] {
				found = next(dir, t, found[:0])
				for _, d := range found {
					if slices.Contains(dirs, d) {
						continue
					}
					if len(dirs) >= limit {
						return dirs, false
					}
					dirs = append(dirs, d)
				}
			}
		}
		if len(dirs) == before {
			break
		}
	}
	return dirs, true
}

// cdTargets returns the directories the literal cd commands of p go to, ~
// for a bare cd. A cd with a word that is not literal is left out: it is
// never safe, so the command it belongs to cannot be safe either.
func cdTargets(p *program, home string) []string {
	var out []string
	for _, cl := range p.calls {
		if cl.kind != kindCall || len(cl.args) == 0 {
			continue
		}
		core, _ := unwrap(cl.args)
		if len(core) == 0 || commandName(&core[0]) != "cd" {
			continue
		}
		t, ok := cdTarget(core[1:], home)
		if ok {
			out = append(out, t)
		}
	}
	return out
}

// cdTarget returns the directory of `cd args...`.
func cdTarget(args []word, home string) (string, bool) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].value, "-") && args[i].value != "-" {
		if args[i].value == "--" {
			i++
			break
		}
		i++
	}
	if i >= len(args) {
		return home, home != ""
	}
	w := &args[i]
	if !w.literal() || w.value == "-" || w.value == "" {
		return "", false
	}
	return expandTilde(w, home)
}
