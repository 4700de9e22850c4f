package session

import (
	"cmp"
	"os/user"
	"slices"
	"strings"
)

// BaseEnv returns the environment every command starts from: exactly
// PATH, HOME, USER, SHELL, LANG, TERM and TMPDIR, as KEY=VALUE sorted by
// name, taken from lookup (the daemon's environment; pass os.LookupEnv)
// and nothing else, so credentials in the daemon's environment never reach
// a command. A variable that is unset or empty gets a default; HOME and
// USER then come from the user database, and stay empty if even that fails.
func BaseEnv(lookup func(string) (string, bool)) []string {
	get := func(name, def string) string {
		if v, ok := lookup(name); ok && v != "" {
			return v
		}
		return def
	}
	vars := map[string]string{
		"PATH":   get("PATH", "/usr/local/bin:/usr/bin:/bin"),
		"HOME":   get("HOME", ""),
		"USER":   get("USER", ""),
		"SHELL":  get("SHELL", "/bin/bash"),
		"LANG":   get("LANG", "C.UTF-8"),
		"TERM":   get("TERM", "dumb"),
		"TMPDIR": get("TMPDIR", "/tmp"),
	}
	if vars["HOME"] == "" || vars["USER"] == "" {
		// On error HOME and USER stay empty: there is nothing better to
		// offer, and a command can still run without them.
		if u, err := user.Current(); err == nil {
			vars["HOME"] = cmp.Or(vars["HOME"], u.HomeDir)
			vars["USER"] = cmp.Or(vars["USER"], u.Username)
		}
	}
	env := make([]string, 0, len(vars))
	for name, v := range vars {
		env = append(env, name+"="+v)
	}
	sortEnv(env)
	return env
}

// Env returns base plus the exports that FilterExports keeps, sorted by
// name. A name in base always keeps its base value.
func Env(base []string, exports map[string]string) []string {
	env := slices.Clone(base)
	inBase := make(map[string]bool, len(base))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		inBase[name] = true
	}
	for name, v := range FilterExports(exports) {
		if !inBase[name] {
			env = append(env, name+"="+v)
		}
	}
	sortEnv(env)
	return env
}

// sortEnv sorts KEY=VALUE entries by key, keeping the order of equal keys.
func sortEnv(env []string) {
	slices.SortStableFunc(env, func(a, b string) int {
		ka, _, _ := strings.Cut(a, "=")
		kb, _, _ := strings.Cut(b, "=")
		return cmp.Compare(ka, kb)
	})
}
