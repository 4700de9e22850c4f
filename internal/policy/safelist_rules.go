package policy

import "strings"

// extraSafeDef is the check of a command the policy file adds to the safe
// list: its words are plain literals (argv checks that), every operand is
// taken for a path that must lie in the workspace, an option's =value
// likewise, and an option holding a / without = is not safe. A word that
// is not a path at all (jq's '.a.b') resolves inside the workspace and so
// passes.
func extraSafeDef() cmdDef {
	return cmdDef{check: func(s *safeCheck, name string, args []word) *unsafe {
		for i := range args {
			v := args[i].value
			if !strings.HasPrefix(v, "-") || v == "-" {
				if u := s.path(&args[i]); u != nil {
					return u
				}
				continue
			}
			if _, val, ok := strings.Cut(v, "="); ok {
				w := litWord(val)
				if u := s.path(&w); u != nil {
					return u
				}
			} else if strings.Contains(v, "/") {
				return notSafe("option", "%s %s names a path in an option", name, v)
			}
		}
		return nil
	}}
}

// allowedByRule returns the index in rules of the first allow prefix rule
// that matches cl, or -1. The command must be a plain command line with
// harmless redirections and assignments; wrappers (env, timeout, nice…)
// are looked through, and env may set only harmless variables. Its other
// words may be anything: the person allowed that prefix with any
// arguments. Substitutions in them are simple commands of their own and
// are checked on their own.
func (s *safeCheck) allowedByRule(cl *call, rules []*rule) int {
	if cl.kind != kindCall || len(cl.args) == 0 || len(rules) == 0 {
		return -1
	}
	for _, r := range cl.redirs {
		if s.redirect(r) != nil {
			return -1
		}
	}
	if s.assignsOnly(cl.assigns) != nil {
		return -1
	}
	core, env := unwrap(cl.argv())
	if len(core) == 0 {
		return -1
	}
	for i := range env {
		if key, _, _ := strings.Cut(env[i].value, "="); !harmlessName(key) {
			return -1
		}
	}
	for i, r := range rules {
		if r.matchPrefix(core, s.ruleName, false) {
			return i
		}
	}
	return -1
}

// ruleName is the name a command word runs for matching an allow rule:
// as for the safe list, "" when it is not a plain name.
func (s *safeCheck) ruleName(w *word) string {
	name, u := s.commandName(w)
	if u != nil {
		return ""
	}
	return name
}

// runsOtherCode returns why the command name may not be a safe command: it
// runs programs or code given to it, gains privileges, or is a shell
// builtin that changes the shell. "" when none of those is known of it.
func runsOtherCode(name string) string {
	lower := strings.ToLower(name)
	if _, ok := interpreterFor(lower); ok {
		return "it is an interpreter that runs code given to it"
	}
	if _, ok := wrapperFor(lower); ok {
		return "it runs another command given in its arguments"
	}
	switch lower {
	case "sudo", "sudoedit", "su", "doas", "pkexec", "run0", "runuser", "setcap", "chmod", "chown", "install",
		"osascript", "automator", "security", "secret-tool", "nc", "ncat", "netcat", "socat", "telnet",
		"curl", "wget", "rm", "mv", "cp", "dd", "tee", "truncate", "ln", "crontab", "launchctl", "systemctl":
		return "it is covered by hard-deny categories or writes files"
	case "eval", "source", ".", "exec", "trap", "alias", "unalias", "enable", "hash", "shopt", "set",
		"declare", "typeset", "export", "local", "readonly", "unset", "read", "mapfile", "readarray",
		"getopts", "let", "coproc", "fc", "history", "bind", "complete", "ulimit", "umask", "kill", "wait":
		return "it is a shell builtin that runs code or changes the shell"
	case "awk", "gawk", "mawk", "nawk", "sed", "gsed", "perl", "ex", "ed", "vi", "vim", "nvim", "view",
		"emacs", "nano", "pico", "less", "more", "most", "man", "git", "ssh", "scp", "sftp", "rsync",
		"make", "cmake", "ninja", "npm", "npx", "yarn", "pnpm", "bun", "deno", "pip", "pip3", "pipx",
		"uv", "cargo", "go", "gradle", "mvn", "docker", "podman", "kubectl", "at", "batch", "watch",
		"parallel", "strace", "ltrace", "gdb", "lldb", "script", "tmux", "screen", "expect", "xdg-open",
		"open", "find", "xargs", "tar", "zip", "unzip":
		return "it can run other programs, write files or change the system"
	}
	return ""
}
