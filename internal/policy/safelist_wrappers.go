package policy

import "strings"

// maxSafeWrappers bounds how many wrappers a safe command may stand in.
const maxSafeWrappers = 8

// safeWrappers returns the wrapper commands of the safe list: each is safe
// exactly when the command it runs is, and only with options that change
// nothing else (no env -S, no time -o, no env --chdir).
func safeWrappers() map[string]cmdDef {
	wrap := func(f func(s *safeCheck, name string, args []word, depth int) *unsafe) cmdDef {
		return cmdDef{wrapper: f}
	}
	return map[string]cmdDef{
		"env":     wrap(checkEnv),
		"timeout": wrap(checkTimeout),
		"nice":    wrap(checkNice),
		"nohup":   wrap(checkNohup),
		"command": wrap(checkCommand),
		"time":    wrap(checkTime),
		"stdbuf":  wrap(checkStdbuf),
		"xargs": {check: func(*safeCheck, string, []word) *unsafe {
			return notSafe("wrapper", "xargs runs a command with arguments read from its input, which Sidecar cannot see")
		}},
	}
}

// inner checks the command a wrapper runs.
func (s *safeCheck) inner(name string, args []word, depth int) *unsafe {
	if len(args) == 0 {
		return notSafe("operand", "%s without a command", name)
	}
	if depth >= maxSafeWrappers {
		return notSafe("wrapper", "more than %d wrappers around one command", maxSafeWrappers)
	}
	return s.argv(args, depth+1)
}

// wrapperOpts walks a wrapper's options: flags it may take alone, options
// whose value follows (attached or in the next word), and long forms of
// both (--name, --name=value, --name value). It returns the words after
// the options, or why an option is not on the list.
func wrapperOpts(name string, args []word, flags, valued string, longFlags, longValued []string) ([]word, *unsafe) {
	i := 0
	for i < len(args) {
		v := args[i].value
		if v == "--" {
			return args[i+1:], nil
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		if long, ok := strings.CutPrefix(v, "--"); ok {
			key, _, hasVal := strings.Cut(long, "=")
			switch {
			case !hasVal && contains(longFlags, key):
			case contains(longValued, key):
				if !hasVal {
					i++
				}
			default:
				return nil, notSafe("option", "%s %s is not on the safe list", name, v)
			}
			i++
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(flags, c) >= 0 {
				continue
			}
			if strings.IndexByte(valued, c) < 0 {
				return nil, notSafe("option", "%s -%c is not on the safe list", name, c)
			}
			if j == len(v)-1 {
				i++ // the value is the next word
			}
			break
		}
		i++
	}
	if i > len(args) {
		return nil, notSafe("option", "%s: an option lacks its value", name)
	}
	return args[i:], nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkEnv allows env printing the environment, or running a safe command
// with the environment cleared, names unset, or lower-case variables set.
func checkEnv(s *safeCheck, name string, args []word, depth int) *unsafe {
	rest, u := wrapperOpts(name, args, "i0", "u", []string{"ignore-environment", "null"}, []string{"unset"})
	if u != nil {
		return u
	}
	for len(rest) > 0 && (rest[0].value == "-" || isAssignment(rest[0].value)) {
		if key, _, _ := strings.Cut(rest[0].value, "="); rest[0].value != "-" && !harmlessName(key) {
			return notSafe("assignment", "env %s sets a variable that can change how commands run", rest[0].value)
		}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return nil // env alone prints the environment
	}
	return s.inner(name, rest, depth)
}

// checkTimeout allows timeout [options] DURATION COMMAND.
func checkTimeout(s *safeCheck, name string, args []word, depth int) *unsafe {
	rest, u := wrapperOpts(name, args, "v", "sk", []string{"preserve-status", "foreground", "verbose"},
		[]string{"signal", "kill-after"})
	if u != nil {
		return u
	}
	if len(rest) == 0 {
		return notSafe("operand", "timeout without a duration")
	}
	return s.inner(name, rest[1:], depth)
}

// checkNice allows nice alone (it prints the niceness) or around a safe
// command.
func checkNice(s *safeCheck, name string, args []word, depth int) *unsafe {
	if len(args) > 0 && len(args[0].value) > 1 && args[0].value[0] == '-' &&
		strings.Trim(args[0].value[1:], "0123456789") == "" {
		args = args[1:] // the old -N form
	}
	rest, u := wrapperOpts(name, args, "", "n", nil, []string{"adjustment"})
	if u != nil {
		return u
	}
	if len(rest) == 0 {
		return nil
	}
	return s.inner(name, rest, depth)
}

// checkNohup allows nohup around a safe command: the daemon's output is a
// pipe, so nohup writes no nohup.out.
func checkNohup(s *safeCheck, name string, args []word, depth int) *unsafe {
	rest, u := wrapperOpts(name, args, "", "", nil, nil)
	if u != nil {
		return u
	}
	return s.inner(name, rest, depth)
}

// checkCommand allows command -v/-V (a lookup) and command [-p] around a
// safe command.
func checkCommand(s *safeCheck, name string, args []word, depth int) *unsafe {
	if len(args) > 0 && (args[0].value == "-v" || args[0].value == "-V") {
		return checkCommandLookup(s, name, args)
	}
	rest, u := wrapperOpts(name, args, "p", "", nil, nil)
	if u != nil {
		return u
	}
	return s.inner(name, rest, depth)
}

// checkTime allows GNU time around a safe command, but not -o or -a: they
// write a file.
func checkTime(s *safeCheck, name string, args []word, depth int) *unsafe {
	rest, u := wrapperOpts(name, args, "pvq", "f", []string{"portability", "verbose", "quiet"}, []string{"format"})
	if u != nil {
		return u
	}
	return s.inner(name, rest, depth)
}

// checkStdbuf allows stdbuf around a safe command.
func checkStdbuf(s *safeCheck, name string, args []word, depth int) *unsafe {
	rest, u := wrapperOpts(name, args, "", "ioe", nil, []string{"input", "output", "error"})
	if u != nil {
		return u
	}
	return s.inner(name, rest, depth)
}
