package session

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Bounds on what persists; see FilterExports.
const (
	MaxExports     = 256
	MaxExportBytes = 64 << 10 // sum of len(NAME=value) over kept variables
)

// dropRule is one group of variables that never persists, and why.
type dropRule struct {
	group    string
	names    []string // exact names
	prefixes []string // every name starting with one of these
	why      string
}

// dropRules is the table FilterExports applies. The threat it answers: a
// command the person approved exports a variable, and a later command that
// the policy judges harmless ("git status", "go build", "ls") then runs
// other code, or runs somewhere else, because of it. Variables that only
// feed a program data it was asked to process (CFLAGS, NODE_ENV, LC_*,
// proxies, VIRTUAL_ENV) persist.
var dropRules = []dropRule{
	{group: "base",
		names: []string{"PATH", "HOME", "USER", "SHELL", "LANG", "TERM", "TMPDIR"},
		why:   "set afresh from the daemon's own environment for every command; PATH above all decides which program a name runs"},
	{group: "shell",
		names: []string{"PWD", "OLDPWD", "SHLVL", "_", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE",
			"ENV", "IFS", "CDPATH", "GLOBIGNORE", "EXECIGNORE", "FIGNORE", "POSIXLY_CORRECT",
			"SHELLOPTS", "PROMPT_COMMAND", "PROMPT_DIRTRIM", "PS0", "PS1", "PS2", "PS3", "PS4",
			"TIMEFORMAT", "TMOUT", "INPUTRC", "FUNCNEST", "MAIL", "MAILCHECK", "MAILPATH", "HOSTFILE",
			"ZDOTDIR", "TEXTDOMAIN", "TEXTDOMAINDIR"},
		prefixes: []string{"BASH", "HIST", "COMP_"},
		why:      "bash's own state, or settings that make bash run code (BASH_ENV, ENV, PROMPT_COMMAND, PS4, BASH_FUNC_*) or parse and resolve differently (IFS, CDPATH, SHELLOPTS, BASHOPTS, EXECIGNORE)"},
	{group: "loader and libc",
		names:    []string{"GLIBC_TUNABLES", "LOCPATH", "GCONV_PATH", "NLSPATH", "TZDIR", "HOSTALIASES", "RES_OPTIONS", "LOCALDOMAIN"},
		prefixes: []string{"LD_", "DYLD_", "MALLOC_"},
		why:      "load libraries or data files into every program, or change name resolution"},
	{group: "git",
		prefixes: []string{"GIT_"},
		why:      "GIT_SSH_COMMAND, GIT_EXEC_PATH, GIT_CONFIG_*, GIT_PAGER, GIT_ASKPASS, GIT_DIR and more run other programs or point git at another repository"},
	{group: "pagers and editors",
		names: []string{"PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "FCEDIT", "SUDO_EDITOR", "BROWSER",
			"GH_PAGER", "BAT_PAGER", "DELTA_PAGER", "PSQL_PAGER"},
		prefixes: []string{"LESS"},
		why:      "name programs that tools start on their own; LESSOPEN and LESSCLOSE are shell commands"},
	{group: "ssh and askpass",
		names:    []string{"SUDO_ASKPASS", "RSH", "RSYNC_RSH", "CVS_RSH", "SVN_SSH", "BORG_RSH"},
		prefixes: []string{"SSH_"},
		why:      "SSH_AUTH_SOCK lends the person's keys; askpass helpers are programs run for passwords; RSYNC_RSH, CVS_RSH, SVN_SSH and BORG_RSH are commands run to reach other hosts"},
	{group: "python",
		prefixes: []string{"PYTHON"},
		why:      "PYTHONSTARTUP, PYTHONPATH, PYTHONHOME, PYTHONINSPECT, PYTHONWARNINGS and PYTHONBREAKPOINT load code from elsewhere; the harmless ones are not worth a list"},
	{group: "node",
		names: []string{"NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE", "NODE_EXTRA_CA_CERTS", "NODE_TLS_REJECT_UNAUTHORIZED"},
		why:   "preload modules (NODE_OPTIONS=--require), change module resolution, or TLS trust"},
	{group: "perl and ruby",
		names:    []string{"GEM_HOME", "GEM_PATH"},
		prefixes: []string{"PERL", "RUBY"},
		why:      "PERL5OPT, PERL5LIB, PERLLIB, PERL5DB, RUBYOPT, RUBYLIB and the gem paths load code from elsewhere"},
	{group: "java",
		names: []string{"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH"},
		why:   "add agents and classes to every JVM"},
	{group: "lua",
		prefixes: []string{"LUA_"},
		why:      "LUA_INIT runs code; LUA_PATH and LUA_CPATH change module resolution"},
	{group: "go",
		names: []string{"GOFLAGS", "GOTOOLCHAIN", "GOENV", "GOROOT", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE", "GOPRIVATE", "GONOPROXY", "GOVCS"},
		why:   "GOFLAGS=-toolexec runs a program on every build; the others swap the toolchain or where modules come from and how they are checked"},
	{group: "rust",
		names:    []string{"RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC", "RUSTFLAGS", "RUSTDOCFLAGS", "RUSTUP_TOOLCHAIN"},
		prefixes: []string{"CARGO_"},
		why:      "wrappers and CARGO_* settings (target runners, registries) run other programs"},
	{group: "make",
		names:    []string{"MFLAGS", "GNUMAKEFLAGS"},
		prefixes: []string{"MAKE"},
		why:      "MAKEFILES reads extra makefiles and MAKEFLAGS can set SHELL, so a plain `make` runs other recipes"},
	{group: "package managers",
		prefixes: []string{"npm_config_", "NPM_CONFIG_", "YARN_", "PIP_", "UV_"},
		why:      "npm reads its whole configuration (script-shell, registry, userconfig) from npm_config_*, in either case; PIP_* and UV_* switch the index and config file"},
	{group: "config redirects",
		names: []string{"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "CURL_HOME", "WGETRC", "RIPGREP_CONFIG_PATH",
			"GNUPGHOME", "GREP_OPTIONS"},
		prefixes: []string{"OPENSSL_"},
		why:      "point tools at another config file, which can run code (git's core.fsmonitor via XDG_CONFIG_HOME, OpenSSL engines, rg --pre via RIPGREP_CONFIG_PATH), change what curl and wget send, which keys gpg trusts, or add options to grep"},
	{group: "archivers",
		names: []string{"TAR_OPTIONS", "TAPE", "RMT", "GZIP", "BZIP", "BZIP2", "XZ_OPT", "XZ_DEFAULTS", "ZSTD_CLEVEL", "UNZIP", "ZIPOPT"},
		why:   "TAR_OPTIONS adds options (--to-command, --checkpoint-action) to every tar the safe list runs; TAPE and RMT name devices and remote helpers; the rest feed options to the compressors tar starts"},
	{group: "terminal",
		names: []string{"TERMINFO", "TERMINFO_DIRS", "TERMCAP"},
		why:   "terminal descriptions are parsed by every curses program and have been an attack surface"},
	{group: "tls trust",
		names: []string{"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"},
		why:   "replace the CAs later commands trust, which together with a proxy lets traffic be read and changed"},
}

// dropReason returns the group that keeps name from persisting, or "".
func dropReason(name string) string {
	if !isIdentifier(name) {
		return "not an identifier"
	}
	for _, r := range dropRules {
		if slices.Contains(r.names, name) {
			return r.group
		}
		for _, p := range r.prefixes {
			if strings.HasPrefix(name, p) {
				return r.group
			}
		}
	}
	return ""
}

// FilterExports returns the variables of vars that may persist to the
// next command of a session. It drops every name in dropRules, names that
// are not shell identifiers, and values that hold a NUL byte or are not
// valid UTF-8 (the state file is JSON, which would alter them).
//
// Of the rest it keeps at most MaxExports variables of MaxExportBytes in
// all, taking names in byte order and skipping any variable that no longer
// fits, so the same input always keeps the same set and one huge value
// does not push out everything after it. The result is never nil.
func FilterExports(vars map[string]string) map[string]string {
	names := make([]string, 0, len(vars))
	for name, v := range vars {
		if dropReason(name) == "" && !strings.Contains(v, "\x00") && utf8.ValidString(v) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	kept := make(map[string]string)
	size := 0
	for _, name := range names {
		n := len(name) + 1 + len(vars[name])
		if len(kept) == MaxExports {
			break
		}
		if size+n > MaxExportBytes {
			continue
		}
		kept[name] = vars[name]
		size += n
	}
	return kept
}

// isIdentifier reports whether s is a shell variable name:
// [A-Za-z_][A-Za-z0-9_]*.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
