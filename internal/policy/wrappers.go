package policy

import (
	"slices"
	"strings"
)

// maxWrappers bounds how many wrapper commands are peeled off one argv.
const maxWrappers = 16

// wrapperSpec describes a command that runs another command given in its
// own arguments: env, nice, timeout, xargs and the like.
type wrapperSpec struct {
	valued   string   // short options that take a value
	long     []string // long options that take the next word unless written with =
	operands int      // words between the options and the command (timeout's duration)
	assigns  bool     // NAME=VALUE words set the environment (env)
	lookup   string   // short options that make it look the command up, not run it
}

// wrapperFor returns how the wrapper command name takes its options, or
// false when name does not run a command given in its arguments.
func wrapperFor(name string) (wrapperSpec, bool) {
	switch name {
	case "env":
		return wrapperSpec{valued: "uCSP", long: []string{"unset", "chdir", "split-string"}, assigns: true}, true
	case "command":
		return wrapperSpec{lookup: "vV"}, true
	case "builtin", "nohup", "setsid", "busybox", "unbuffer":
		return wrapperSpec{}, true
	case "exec":
		return wrapperSpec{valued: "a"}, true
	case "nice":
		return wrapperSpec{valued: "n", long: []string{"adjustment"}}, true
	case "ionice":
		return wrapperSpec{valued: "cn", long: []string{"class", "classdata"}}, true
	case "timeout":
		return wrapperSpec{valued: "ks", long: []string{"kill-after", "signal"}, operands: 1}, true
	case "stdbuf":
		return wrapperSpec{valued: "ioe", long: []string{"input", "output", "error"}}, true
	case "time":
		return wrapperSpec{valued: "fo", long: []string{"format", "output"}}, true
	case "caffeinate":
		return wrapperSpec{valued: "tw"}, true
	case "xargs":
		return wrapperSpec{
			valued: "aEdILnPs",
			long:   []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
		}, true
	}
	return wrapperSpec{}, false
}

// unwrap peels wrapper commands and their options off args and returns the
// command that really runs, with the NAME=VALUE words env sets on the way.
// A nil core means nothing is run (command -v).
func unwrap(args []word) (core, env []word) {
	for range maxWrappers {
		if len(args) == 0 {
			break
		}
		spec, ok := wrapperFor(commandName(&args[0]))
		if !ok {
			break
		}
		rest, split, lookup := spec.skip(args[1:], &env)
		if lookup {
			return nil, env
		}
		if split != nil {
			// env -S splits its value into words that env then reads
			// as its own arguments.
			args = append(append([]word{litWord("env")}, split...), rest...)
			continue
		}
		args = rest
	}
	return args, env
}

// skip returns the words after the wrapper's options, assignments and
// leading operands; split holds the words of an env -S string.
func (s wrapperSpec) skip(args []word, env *[]word) (rest, split []word, lookup bool) {
	i := 0
	for i < len(args) {
		v := args[i].value
		if v == "--" {
			i++
			break
		}
		if s.assigns && isAssignment(v) {
			*env = append(*env, args[i])
			i++
			continue
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		if long, ok := strings.CutPrefix(v, "--"); ok {
			name, val, hasVal := strings.Cut(long, "=")
			if !hasVal && slices.Contains(s.long, name) && i+1 < len(args) {
				i++
				val = args[i].value
			}
			if name == "split-string" && s.assigns {
				split = splitWords(val)
			}
			i++
			continue
		}
		for j := 1; j < len(v); j++ {
			ch := v[j]
			if strings.IndexByte(s.lookup, ch) >= 0 {
				return nil, nil, true
			}
			if strings.IndexByte(s.valued, ch) >= 0 {
				val := v[j+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i].value
				}
				if ch == 'S' && s.assigns {
					split = splitWords(val)
				}
				break
			}
		}
		i++
	}
	i = min(i+s.operands, len(args))
	return args[i:], split, false
}

func splitWords(s string) []word {
	fields := strings.Fields(s)
	out := make([]word, 0, len(fields))
	for _, f := range fields {
		out = append(out, litWord(f))
	}
	if out == nil {
		out = []word{}
	}
	return out
}

// isAssignment reports whether v has the NAME=VALUE shape.
func isAssignment(v string) bool {
	name, _, ok := strings.Cut(v, "=")
	return ok && validName(name)
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// commandName returns the name a command word runs, for matching: the last
// path element, lower-cased because macOS file systems ignore case. It is
// "" when the word's value is not fully known.
func commandName(w *word) string {
	v := w.value
	for i := 0; i < len(v); i++ {
		// Most names are plain lower-case words, which are their own name.
		if c := v[i]; c == '/' || c >= 'A' && c <= 'Z' || c >= 0x80 || c == 0 {
			if !w.known() {
				return ""
			}
			if i := strings.LastIndexByte(v, '/'); i >= 0 {
				v = v[i+1:]
			}
			return strings.ToLower(v)
		}
	}
	return v
}
