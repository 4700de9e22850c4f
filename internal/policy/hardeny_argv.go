package policy

import (
	"strconv"
	"strings"
)

// argv checks one command line after its wrappers are peeled off. redirs
// are the redirections of the statement, nil for a nested argv such as
// find -exec's.
func (d *denyCheck) argv(p *program, args []word, redirs []redir, depth int) *denial {
	core, env := unwrap(args)
	for i := range env {
		name, value, _ := strings.Cut(env[i].value, "=")
		v := litWord(value)
		if x := historyAssign(name, &v); x != nil {
			return x
		}
	}
	if len(core) == 0 {
		return nil
	}
	for _, r := range d.rules {
		if r.matchPrefix(core, commandName, true) {
			return &denial{what: displayWords(core), rule: r}
		}
	}
	name, rest := commandName(&core[0]), core[1:]
	if how, files := writes(name, rest); how != "" {
		for i := range files {
			if x := d.writeTarget(&files[i], how); x != nil {
				return x
			}
		}
	}
	switch name {
	case "crontab":
		if !crontabListOnly(rest) {
			return &denial{category: catProtectedWrite, what: "crontab " + displayWords(rest) + " (" + wgCron + ")"}
		}
	case "launchctl":
		switch firstOperand(rest) {
		case "load", "bootstrap", "submit", "enable":
			return &denial{category: catProtectedWrite, what: "launchctl " + firstOperand(rest) + " (" + wgLaunch + ")"}
		}
	case "sudo", "sudoedit", "su", "doas", "pkexec", "run0", "runuser", "setcap":
		return &denial{category: catPrivilege, what: name}
	case "chmod":
		if m := chmodMode(rest); setuidMode(m) {
			return &denial{category: catPrivilege, what: "chmod " + m}
		}
	case "install":
		if m := installMode(rest); setuidMode(m) {
			return &denial{category: catPrivilege, what: "install -m " + m}
		}
	case "rm":
		if x := d.rm(rest); x != nil {
			return x
		}
	case "find":
		if x := d.findDelete(p, rest, depth); x != nil {
			return x
		}
	case "osascript", "automator":
		return &denial{category: catAppleEvents, what: name}
	case "security":
		if x := keychain(rest); x != nil {
			return x
		}
	case "secret-tool":
		if sub := firstOperand(rest); sub == "lookup" || sub == "search" || sub == "clear" {
			return &denial{category: catKeychain, what: "secret-tool " + sub}
		}
	case "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd":
		if x := netcatExec(name, rest); x != nil {
			return x
		}
	case "socat":
		for i := range rest {
			v := strings.ToLower(rest[i].value)
			if strings.HasPrefix(v, "exec:") || strings.HasPrefix(v, "system:") {
				return &denial{category: catNetworkShell, what: "socat " + rest[i].display()}
			}
		}
	}
	if x := historyCommand(name, rest); x != nil {
		return x
	}
	return d.interpreter(p, name, rest, redirs, depth)
}

// chmodMode returns chmod's mode operand: its first word that is not an
// option ("-x" style modes only remove bits).
func chmodMode(args []word) string {
	for i := range args {
		v := args[i].value
		if strings.HasPrefix(v, "--reference") {
			return ""
		}
		if !strings.HasPrefix(v, "-") {
			return v
		}
	}
	return ""
}

// installMode returns the mode install -m sets, or "".
func installMode(args []word) string {
	for i := range args {
		v := args[i].value
		switch {
		case v == "-m" || v == "--mode":
			if i+1 < len(args) {
				return args[i+1].value
			}
		case strings.HasPrefix(v, "--mode="):
			return strings.TrimPrefix(v, "--mode=")
		case strings.HasPrefix(v, "-m"):
			return v[2:]
		}
	}
	return ""
}

// setuidMode reports whether a chmod mode sets the setuid or setgid bit:
// an octal mode with 4xxx, 2xxx or 6xxx, or a symbolic u+s, g+s, +s, =s.
func setuidMode(m string) bool {
	if m == "" {
		return false
	}
	if strings.Trim(m, "01234567") == "" {
		n, err := strconv.ParseUint(m, 8, 32)
		return err == nil && n&0o6000 != 0
	}
	for _, clause := range strings.Split(m, ",") {
		i := 0
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			i++
		}
		who := clause[:i]
		var op byte
		for ; i < len(clause); i++ {
			switch c := clause[i]; c {
			case '+', '-', '=':
				op = c
			case 's':
				if (op == '+' || op == '=') && (who == "" || strings.ContainsAny(who, "uga")) {
					return true
				}
			}
		}
	}
	return false
}

// keychain denies the security subcommands that read, export, unlock or
// delete keychain items, and its interactive mode.
func keychain(args []word) *denial {
	for i := 0; i < len(args); i++ {
		v := args[i].value
		if v == "-p" {
			i++
			continue
		}
		if strings.HasPrefix(v, "-") {
			if strings.Contains(v, "i") {
				return &denial{category: catKeychain, what: "security " + v}
			}
			continue
		}
		sub := strings.ToLower(v)
		for _, prefix := range []string{
			"find-", "dump-", "export", "unlock-", "delete-", "set-keychain",
			"set-key-partition", "set-generic-password-partition", "set-internet-password-partition",
		} {
			if strings.HasPrefix(sub, prefix) {
				return &denial{category: catKeychain, what: "security " + sub}
			}
		}
		return nil
	}
	return nil
}

// netcatExec denies nc -e / -c (in any option cluster) and ncat --exec.
func netcatExec(name string, args []word) *denial {
	for i := range args {
		v := args[i].value
		if long, ok := strings.CutPrefix(v, "--"); ok {
			long, _, _ = strings.Cut(long, "=")
			if long == "exec" || long == "sh-exec" || long == "lua-exec" {
				return &denial{category: catNetworkShell, what: name + " " + v}
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' && strings.ContainsAny(v[1:], "ec") {
			return &denial{category: catNetworkShell, what: name + " " + v}
		}
	}
	return nil
}

// firstOperand returns the first word that is not an option, lower-cased.
func firstOperand(args []word) string {
	for i := range args {
		if !strings.HasPrefix(args[i].value, "-") {
			return strings.ToLower(args[i].value)
		}
	}
	return ""
}

// crontabListOnly reports whether crontab only lists a table (-l, maybe
// with -u USER): anything else installs, edits or removes one.
func crontabListOnly(args []word) bool {
	list := false
	for i := 0; i < len(args); i++ {
		switch args[i].value {
		case "-l":
			list = true
		case "-u":
			i++
		default:
			return false
		}
	}
	return list
}

// displayWords joins words as a person is shown them.
func displayWords(ws []word) string {
	out := make([]string, len(ws))
	for i := range ws {
		out[i] = ws[i].display()
	}
	return strings.Join(out, " ")
}
