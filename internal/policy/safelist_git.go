package policy

import (
	"path/filepath"
	"slices"
	"strings"
)

// gitDef allows the git subcommands that only read the repository: status,
// log, diff, show, rev-parse, ls-files, grep, blame, ls-tree, describe,
// shortlog, merge-base and branch listing, with -C only into the
// workspace. Git's own config
// (pagers, external diff, fsmonitor) lives in the workspace repository and
// is the local user's.
func gitDef() cmdDef {
	return cmdDef{check: func(s *safeCheck, _ string, args []word) *unsafe { return s.git(args) }}
}

func (s *safeCheck) git(args []word) *unsafe {
	// repo is the directory git starts from: ".", or where -C options
	// lead, each relative to the one before.
	repo := litWord(".")
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].value, "-"); i++ {
		switch v := args[i].value; {
		case v == "--no-pager" || v == "-P" || v == "--no-optional-locks" ||
			v == "--literal-pathspecs" || v == "--no-replace-objects":
		case v == "-C":
			if i+1 >= len(args) {
				return notSafe("option", "git -C without a directory")
			}
			i++
			next, ok := expandTilde(&args[i], s.c.home)
			if !ok || !args[i].literal() {
				return notSafe("not-literal", "git -C %s is not a plain literal directory", args[i].src)
			}
			if !filepath.IsAbs(next) {
				next = strings.TrimSuffix(repo.value, "/") + "/" + next
			}
			repo = litWord(next)
		case v == "--git-dir" || v == "--work-tree":
			if i+1 >= len(args) {
				return notSafe("option", "git %s without a directory", v)
			}
			i++
			if u := s.path(&args[i]); u != nil {
				return u
			}
		case strings.HasPrefix(v, "--git-dir=") || strings.HasPrefix(v, "--work-tree="):
			_, dir, _ := strings.Cut(v, "=")
			if w := litWord(dir); s.path(&w) != nil {
				return s.path(&w)
			}
		default:
			// -c, -C, -p, --exec-path, --config-env and the rest.
			return notSafeText("option", "git "+v+" is not on the safe list")
		}
	}
	if i >= len(args) {
		return notSafe("operand", "git without a subcommand is not on the safe list")
	}
	sub, rest := args[i].value, args[i+1:]
	switch sub {
	case "status", "log", "diff", "show", "rev-parse", "ls-files", "grep", "blame", "ls-tree",
		"describe", "shortlog", "merge-base":
	case "branch":
		if u := gitBranchListing(rest); u != nil {
			return u
		}
	default:
		return notSafeText("unknown-command", "git "+sub+" is not on the safe list")
	}
	for _, a := range rest {
		if sub == "grep" && (a.value == "-f" || strings.HasPrefix(a.value, "--file")) {
			return notSafe("option", "git grep %s reads patterns from a file", a.value)
		}
		for _, bad := range []string{"--output", "--ext-diff", "--no-index", "--open-files-in-pager", "--exclude-from", "-O", "--contents"} {
			if strings.HasPrefix(a.value, bad) {
				return notSafe("option", "git %s %s can write files or read outside the repository", sub, a.value)
			}
		}
	}
	// git reads the repository of the directory it starts from.
	return s.path(&repo)
}

// gitBranchListing allows git branch only in its listing forms: an operand
// creates a branch unless --list is given.
func gitBranchListing(args []word) *unsafe {
	flags := []string{"all", "remotes", "list", "verbose", "show-current", "color", "no-color", "column",
		"no-column", "ignore-case", "abbrev", "no-abbrev", "omit-empty", "contains", "no-contains",
		"merged", "no-merged", "points-at", "sort", "format"}
	valued := []string{"contains", "no-contains", "merged", "no-merged", "points-at", "sort", "format"}
	listing, operands := false, false
	for i := 0; i < len(args); i++ {
		v := args[i].value
		if long, ok := strings.CutPrefix(v, "--"); ok {
			name, _, hasVal := strings.Cut(long, "=")
			if !slices.Contains(flags, name) {
				return notSafe("option", "git branch --%s changes branches", name)
			}
			if !hasVal && slices.Contains(valued, name) {
				i++
			}
			listing = listing || name == "list"
			continue
		}
		if strings.HasPrefix(v, "-") {
			if strings.Trim(v[1:], "arlvi") != "" || v == "-" {
				return notSafe("option", "git branch %s changes branches", v)
			}
			listing = listing || strings.Contains(v, "l")
			continue
		}
		operands = true
	}
	if operands && !listing {
		return notSafe("operand", "git branch with a name creates a branch")
	}
	return nil
}
