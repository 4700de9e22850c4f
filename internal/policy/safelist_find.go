package policy

import "strings"

// findExpr sorts find's expression words: those that stand alone, those
// that take one value, and those whose value is a file find reads
// (-newer FILE). Anything else, including -exec, -execdir, -ok, -okdir,
// -delete, -fprint, -fprint0, -fprintf, -fls, -files0-from and -follow,
// is not on the list.
var findExpr = struct {
	alone, valued, file []string
}{
	alone: []string{"(", ")", "!", ",", "-not", "-a", "-and", "-o", "-or", "-true", "-false",
		"-print", "-print0", "-ls", "-prune", "-quit", "-empty", "-executable", "-readable",
		"-writable", "-nouser", "-nogroup", "-depth", "-d", "-mount", "-xdev", "-noleaf",
		"-daystart", "-ignore_readdir_race", "-noignore_readdir_race"},
	valued: []string{"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex",
		"-iregex", "-regextype", "-type", "-xtype", "-size", "-perm", "-user", "-group", "-uid",
		"-gid", "-links", "-inum", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
		"-maxdepth", "-mindepth", "-lname", "-ilname", "-used", "-context", "-fstype", "-printf"},
	file: []string{"-samefile", "-newer", "-anewer", "-cnewer"},
}

// checkFind allows find over starting points in the workspace with an
// expression that only tests and prints. Symlinks are not followed while
// walking (-L and -follow are not on the list), so the walk stays where
// its starting points are.
func checkFind(s *safeCheck, _ string, args []word) *unsafe {
	i := 0
	for i < len(args) {
		switch v := args[i].value; v {
		case "-P", "-H":
			i++
			continue
		case "-L":
			return notSafe("option", "find -L follows symlinks out of the workspace")
		}
		break
	}
	var starts []word
	for ; i < len(args); i++ {
		v := args[i].value
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []word{litWord(".")}
	}
	if u := s.paths(starts); u != nil {
		return u
	}
	for ; i < len(args); i++ {
		v := args[i].value
		switch {
		case contains(findExpr.alone, v):
		case contains(findExpr.valued, v) || isNewerXY(v) && v[7] == 't':
			if i+1 >= len(args) {
				return notSafe("operand", "find %s without its value", v)
			}
			i++
		case contains(findExpr.file, v) || isNewerXY(v):
			if i+1 >= len(args) {
				return notSafe("operand", "find %s without its file", v)
			}
			i++
			if u := s.path(&args[i]); u != nil {
				return u
			}
		default:
			return notSafeText("option", "find "+v+" is not on the safe list")
		}
	}
	return nil
}

// isNewerXY reports whether v is find's -newerXY test; its value is a
// reference file unless Y is t (a time).
func isNewerXY(v string) bool { return len(v) == 8 && strings.HasPrefix(v, "-newer") }

// checkTar allows tar only to list an archive in the workspace: -t (or
// --list) with -f FILE, the compression flags and verbosity. Checkpoint
// actions, --to-command, -I/--use-compress-program, --rsh-command, info
// scripts, -T file lists and every other option are not on the list, and
// an archive name with a colon (tar would reach for a remote host) is not
// either.
func checkTar(s *safeCheck, _ string, args []word) *unsafe {
	if len(args) == 0 {
		return notSafe("operand", "tar without a mode")
	}
	// The first word may be the old style bundle without a dash: tvzf.
	words := args
	if v := args[0].value; !strings.HasPrefix(v, "-") {
		words = append([]word{litWord("-" + v)}, args[1:]...)
	}
	list := false
	var archive *word
	for i := 0; i < len(words); i++ {
		v := words[i].value
		if long, ok := strings.CutPrefix(v, "--"); ok {
			key, val, hasVal := strings.Cut(long, "=")
			switch key {
			case "list":
				list = true
			case "verbose", "gzip", "gunzip", "bzip2", "xz", "lzma", "zstd", "lzip", "auto-compress",
				"numeric-owner", "full-time", "wildcards", "no-wildcards", "anchored", "no-anchored":
			case "file":
				if !hasVal {
					if i+1 >= len(words) {
						return notSafe("operand", "tar --file without a name")
					}
					i++
					archive = &words[i]
				} else {
					w := litWord(val)
					archive = &w
				}
			default:
				return notSafe("option", "tar --%s is not on the safe list", key)
			}
			continue
		}
		if !strings.HasPrefix(v, "-") {
			continue // a member name to list
		}
		for j := 1; j < len(v); j++ {
			switch c := v[j]; c {
			case 't':
				list = true
			case 'v', 'z', 'j', 'J', 'a':
			case 'f':
				if j+1 < len(v) {
					w := litWord(v[j+1:])
					archive = &w
				} else if i+1 < len(words) {
					i++
					archive = &words[i]
				}
				j = len(v)
			default:
				return notSafe("option", "tar -%c is not on the safe list", c)
			}
		}
	}
	switch {
	case !list:
		return notSafe("option", "only tar -t (listing) is on the safe list")
	case archive == nil:
		return notSafe("operand", "tar -t without -f reads a tape device or $TAPE")
	case strings.Contains(archive.value, ":"):
		return notSafe("operand", "tar takes %s for a remote archive", archive.value)
	}
	return s.path(archive)
}

// checkSet allows set only to turn on or off the error and trace options a
// script uses (set -euo pipefail): nothing that changes how later words
// are read or which commands run.
func checkSet(_ *safeCheck, _ string, args []word) *unsafe {
	if len(args) == 0 {
		return notSafe("operand", "set alone prints every variable and function")
	}
	for i := 0; i < len(args); i++ {
		v := args[i].value
		if len(v) < 2 || v[0] != '-' && v[0] != '+' {
			return notSafe("operand", "set %s sets the positional parameters", v)
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'e', 'u', 'x', 'v', 'C', 'f':
			case 'o':
				if i+1 >= len(args) {
					return notSafe("operand", "set -o alone prints the options")
				}
				i++
				switch args[i].value {
				case "pipefail", "errexit", "nounset", "xtrace", "verbose", "noclobber", "noglob":
				default:
					return notSafe("option", "set -o %s is not on the safe list", args[i].value)
				}
			default:
				return notSafe("option", "set %c%c is not on the safe list", v[0], v[j])
			}
		}
	}
	return nil
}
