package policy

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// writeGuard is a path no command may write to: a place where a write
// outlives the command and runs code, or leaks or replaces credentials,
// without a person seeing it again.
type writeGuard struct {
	path string // absolute and clean
	dir  bool   // everything inside path as well
	what string
}

// Groups of write-protected paths, for reasons and `policy show`.
const (
	wgStartup     = "shell start-up file"
	wgCredentials = "credentials or keys"
	wgGit         = "git hooks or git configuration"
	wgCron        = "cron table"
	wgLaunch      = "launch agent or autostart entry"
	wgSystem      = "system login or loader configuration"
)

// writeGuards returns the write-protected paths for the home directory
// home ("" leaves out those under it). Paths under .git/hooks and
// .git/config are protected wherever they are; see isGitGuarded.
func writeGuards(home string) map[string]writeGuard {
	out := make(map[string]writeGuard)
	add := func(what string, dir bool, paths ...string) {
		for _, p := range paths {
			if rest, ok := strings.CutPrefix(p, "~/"); ok {
				if home == "" {
					continue
				}
				p = home + "/" + rest
			}
			out[p] = writeGuard{path: p, dir: dir, what: what}
		}
	}
	add(wgStartup, false, "~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.bash_logout",
		"~/.bash_aliases", "~/.profile", "~/.zshrc", "~/.zshenv", "~/.zprofile", "~/.zlogin",
		"~/.zlogout", "~/.cshrc", "~/.tcshrc", "~/.login", "~/.logout", "~/.kshrc", "~/.mkshrc",
		"~/.inputrc", "~/.xprofile", "~/.xinitrc", "~/.xsession", "~/.pam_environment")
	add(wgStartup, true, "~/.config/fish", "~/.oh-my-zsh", "~/.bashrc.d", "~/.zshrc.d")
	add(wgCredentials, true, "~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud",
		"~/.kube", "~/.config/gh", "~/.password-store", "~/.terraform.d", "~/.docker")
	add(wgCredentials, false, "~/.netrc", "~/.git-credentials", "~/.npmrc", "~/.pypirc",
		"~/.yarnrc", "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.terraformrc",
		"~/.config/hub", "~/.m2/settings.xml", "~/.gradle/gradle.properties")
	add(wgGit, false, "~/.gitconfig")
	add(wgGit, true, "~/.config/git")
	add(wgCron, true, "/etc/cron.d", "/etc/cron.daily", "/etc/cron.hourly", "/etc/cron.weekly",
		"/etc/cron.monthly", "/var/spool/cron", "/usr/lib/cron/tabs", "/var/at/tabs")
	add(wgCron, false, "/etc/crontab", "/etc/anacrontab")
	add(wgLaunch, true, "~/Library/LaunchAgents", "/Library/LaunchAgents", "/Library/LaunchDaemons",
		"~/.config/systemd", "~/.config/autostart", "/etc/systemd", "/etc/init.d", "/etc/xdg/autostart")
	add(wgSystem, false, "/etc/profile", "/etc/bashrc", "/etc/bash.bashrc", "/etc/zshrc", "/etc/zshenv",
		"/etc/zprofile", "/etc/zlogin", "/etc/environment", "/etc/ld.so.preload", "/etc/sudoers",
		"/etc/passwd", "/etc/shadow", "/etc/group", "/etc/hosts")
	add(wgSystem, true, "/etc/profile.d", "/etc/zsh", "/etc/sudoers.d", "/etc/ld.so.conf.d", "/etc/pam.d")
	return out
}

// protectsWrite returns why the clean absolute path p must not be
// written, or "".
func (c *Classifier) protectsWrite(p string) string {
	if isGitGuarded(p) {
		return wgGit
	}
	// Look p and each directory above it up, rather than scan the list;
	// only a length some guard has is worth a look.
	for q := p; ; {
		if len(q) < len(c.guardLens) && c.guardLens[len(q)] {
			if g, ok := c.writeGuards[q]; ok && (q == p || g.dir) {
				return g.what
			}
		}
		i := strings.LastIndexByte(q, '/')
		if i <= 0 {
			return ""
		}
		q = q[:i]
	}
}

// isGitGuarded reports whether p lies in a repository's hooks directory
// or is its config file: both make later git commands, which the safe list
// trusts, run code (hooks, core.fsmonitor, core.pager, core.hooksPath).
func isGitGuarded(p string) bool {
	if strings.HasSuffix(p, "/.git/config") || strings.HasSuffix(p, "/.git/hooks") {
		return true
	}
	return strings.Contains(p, "/.git/hooks/")
}

// writeTarget returns a denial when the word w, a file the command writes,
// names a write-protected path from any directory it may run in, either as
// written or with its symlinks resolved.
func (d *denyCheck) writeTarget(w *word, how string) *denial {
	if isSink(w.value) {
		return nil
	}
	p, ok := d.knownPath(w.value)
	if !ok || d.writable.has(p) {
		return nil
	}
	check := func(cand string) *denial {
		if what := d.c.protectsWrite(cleanPath(cand)); what != "" {
			return &denial{category: catProtectedWrite, what: how + " " + w.display() + " (" + what + ")"}
		}
		if r, ok := d.res.real(cand); ok {
			if what := d.c.protectsWrite(r); what != "" {
				return &denial{category: catProtectedWrite, what: how + " " + w.display() + " -> " + r + " (" + what + ")"}
			}
		}
		return nil
	}
	if filepath.IsAbs(p) {
		if x := check(p); x != nil {
			return x
		}
	} else {
		for _, dir := range d.cwds {
			if x := check(dir + "/" + p); x != nil {
				return x
			}
		}
	}
	d.writable.add(p)
	return nil
}

// isWriteRedirect reports whether op opens its target for writing.
func isWriteRedirect(r redir) bool {
	switch r.op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return true
	case syntax.DplOut:
		// >&word with a word that is not a descriptor is &>word.
		v := r.target.value
		return v != "-" && strings.Trim(v, "0123456789") != ""
	}
	return false
}

// writes returns the words that the command name, run with args, writes
// to as files, and how it is written for the reason: tee's files, cp, mv,
// ln and install's destination (and the destination joined with each
// source's name, for a directory), dd of=, truncate's files, sed -i's
// files, curl -o and wget -O.
func writes(name string, args []word) (how string, files []word) {
	switch name {
	case "tee", "truncate":
		return name, operands(args, "sr")
	case "cp", "mv", "ln", "install":
		return name, destinations(args)
	case "dd":
		for i := range args {
			if of, ok := strings.CutPrefix(args[i].value, "of="); ok {
				files = append(files, litWord(of))
			}
		}
		return "dd of=", files
	case "sed", "gsed":
		inPlace := false
		for i := range args {
			v := args[i].value
			inPlace = inPlace || strings.HasPrefix(v, "--in-place") ||
				len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsRune(v, 'i')
		}
		if inPlace {
			return "sed -i", operands(args, "efl")
		}
	case "curl", "wget":
		for i := 0; i+1 < len(args); i++ {
			switch args[i].value {
			case "-o", "--output", "-O", "--output-document":
				files = append(files, args[i+1])
			}
		}
		for i := range args {
			for _, p := range []string{"--output=", "--output-document="} {
				if v, ok := strings.CutPrefix(args[i].value, p); ok {
					files = append(files, litWord(v))
				}
			}
		}
		return name + " -o", files
	}
	return "", nil
}

// operands returns the words of args that are not options, skipping the
// value of each short option in valued.
func operands(args []word, valued string) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		v := args[i].value
		if len(v) > 1 && v[0] == '-' {
			if len(v) == 2 && strings.IndexByte(valued, v[1]) >= 0 {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// destinations returns where cp, mv, ln or install write: the -t
// directory or the last operand, and that joined with each source's base
// name in case it is a directory.
func destinations(args []word) []word {
	var target *word
	for i := range args {
		v := args[i].value
		switch {
		case (v == "-t" || v == "--target-directory") && i+1 < len(args):
			target = &args[i+1]
		case strings.HasPrefix(v, "--target-directory="):
			w := litWord(strings.TrimPrefix(v, "--target-directory="))
			target = &w
		}
	}
	ops := operands(args, "tSm")
	if target == nil {
		if len(ops) == 0 {
			return nil
		}
		target, ops = &ops[len(ops)-1], ops[:len(ops)-1]
	}
	out := []word{*target}
	for i := range ops {
		if ops[i].known() && target.known() {
			out = append(out, litWord(strings.TrimSuffix(target.value, "/")+"/"+filepath.Base(ops[i].value)))
		}
	}
	return out
}
