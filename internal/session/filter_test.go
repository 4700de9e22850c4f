package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFilterExportsNames(t *testing.T) {
	// Every group of dropRules has rows here, and every kept row is a
	// near miss of some group.
	tests := []struct {
		group string // "" means kept
		names []string
	}{
		{"base", []string{"PATH", "HOME", "USER", "SHELL", "LANG", "TERM", "TMPDIR"}},
		{"shell", []string{"PWD", "OLDPWD", "SHLVL", "_", "HOSTNAME", "ENV", "IFS", "CDPATH", "GLOBIGNORE",
			"EXECIGNORE", "POSIXLY_CORRECT", "SHELLOPTS", "BASHOPTS", "BASH_ENV", "BASH_FUNC_X", "BASH_XTRACEFD",
			"PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4", "HISTFILE", "HISTSIZE", "INPUTRC", "TMOUT", "COMP_WORDBREAKS", "ZDOTDIR", "TEXTDOMAINDIR"}},
		{"loader and libc", []string{"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "MALLOC_CHECK_",
			"MALLOC_ARENA_MAX", "GLIBC_TUNABLES", "LOCPATH", "GCONV_PATH", "NLSPATH", "TZDIR", "HOSTALIASES", "RES_OPTIONS", "LOCALDOMAIN"}},
		{"git", []string{"GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_PAGER", "GIT_ASKPASS", "GIT_DIR", "GIT_EDITOR"}},
		{"pagers and editors", []string{"PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "FCEDIT", "SUDO_EDITOR", "BROWSER", "LESS", "LESSOPEN", "LESSCLOSE", "GH_PAGER", "BAT_PAGER"}},
		{"ssh and askpass", []string{"SSH_AUTH_SOCK", "SSH_ASKPASS", "SSH_AGENT_PID", "SUDO_ASKPASS", "RSYNC_RSH", "CVS_RSH", "SVN_SSH", "BORG_RSH", "RSH"}},
		{"python", []string{"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT", "PYTHONWARNINGS", "PYTHONBREAKPOINT"}},
		{"node", []string{"NODE_OPTIONS", "NODE_PATH", "NODE_EXTRA_CA_CERTS", "NODE_TLS_REJECT_UNAUTHORIZED"}},
		{"perl and ruby", []string{"PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB", "GEM_HOME", "GEM_PATH"}},
		{"java", []string{"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH"}},
		{"lua", []string{"LUA_INIT", "LUA_PATH", "LUA_CPATH_5_4"}},
		{"go", []string{"GOFLAGS", "GOTOOLCHAIN", "GOENV", "GOROOT", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOINSECURE", "GOPRIVATE"}},
		{"rust", []string{"RUSTC", "RUSTC_WRAPPER", "RUSTFLAGS", "CARGO_HOME", "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER"}},
		{"make", []string{"MAKEFLAGS", "MAKEFILES", "MAKE", "MFLAGS", "GNUMAKEFLAGS"}},
		{"package managers", []string{"npm_config_script_shell", "NPM_CONFIG_REGISTRY", "YARN_RC_FILENAME", "PIP_INDEX_URL",
			"PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE", "UV_INDEX_URL"}},
		{"config redirects", []string{"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "CURL_HOME", "WGETRC", "OPENSSL_CONF", "OPENSSL_ENGINES", "GNUPGHOME", "GREP_OPTIONS"}},
		{"archivers", []string{"TAR_OPTIONS", "TAPE", "RMT", "GZIP", "XZ_OPT"}},
		{"terminal", []string{"TERMINFO", "TERMINFO_DIRS", "TERMCAP"}},
		{"tls trust", []string{"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"}},
		{"not an identifier", []string{"BASH_FUNC_ls%%", "", "1ABC", "A-B", "A B", "A=B", "é", "A.B"}},
		{"", []string{"FOO", "foo", "NODE_ENV", "CFLAGS", "CC", "LC_ALL", "TZ", "VIRTUAL_ENV", "HTTPS_PROXY", "no_proxy",
			"GOPATH", "GOOS", "AWS_REGION", "XDG_DATA_HOME", "TERM_PROGRAM", "USERNAME", "PATHS", "A1", "_X", "DEBUG"}},
	}
	for _, tt := range tests {
		for _, name := range tt.names {
			if got := dropReason(name); got != tt.group {
				t.Errorf("dropReason(%q) = %q, want %q", name, got, tt.group)
			}
			in := map[string]string{name: "v"}
			_, kept := FilterExports(in)[name]
			if kept != (tt.group == "") {
				t.Errorf("FilterExports kept %q = %v, want %v", name, kept, tt.group == "")
			}
		}
	}
}

func TestFilterExportsValues(t *testing.T) {
	in := map[string]string{
		"OK":        "a b\nc 'q' \"d\" \\ $x 日本",
		"EMPTY":     "",
		"NUL":       "a\x00b",
		"NOT_UTF8":  "\xff",
		"PATH":      "/evil",
		"LD_AUDIT":  "/evil.so",
		"ALSO_OKAY": "1",
	}
	want := map[string]string{"OK": in["OK"], "EMPTY": "", "ALSO_OKAY": "1"}
	if diff := cmp.Diff(want, FilterExports(in)); diff != "" {
		t.Errorf("FilterExports mismatch (-want +got):\n%s", diff)
	}
	if got := FilterExports(nil); got == nil || len(got) != 0 {
		t.Errorf("FilterExports(nil) = %#v, want an empty map", got)
	}
}

func TestFilterExportsBounds(t *testing.T) {
	many := make(map[string]string)
	wantMany := make(map[string]string)
	for i := range MaxExports + 44 {
		name := fmt.Sprintf("V%03d", i)
		many[name] = "x"
		if i < MaxExports {
			wantMany[name] = "x" // the first MaxExports names in byte order
		}
	}
	big := strings.Repeat("b", MaxExportBytes-len("A=")-len("Z=z")) // A fills the budget exactly with Z
	tests := []struct {
		name string
		in   map[string]string
		want map[string]string
	}{
		{"count", many, wantMany},
		{"bytes fill exactly", map[string]string{"A": big, "Z": "z"}, map[string]string{"A": big, "Z": "z"}},
		{"overflowing variable skipped, later ones kept", map[string]string{"A": big, "B": "bb", "Z": "z"},
			map[string]string{"A": big, "Z": "z"}},
		{"one huge value does not push out the rest", map[string]string{"H": strings.Repeat("h", MaxExportBytes), "I": "i"},
			map[string]string{"I": "i"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, FilterExports(tt.in)); diff != "" {
				t.Errorf("FilterExports mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDropRulesDocumented(t *testing.T) {
	seen := make(map[string]bool)
	for _, r := range dropRules {
		if r.group == "" || r.why == "" || len(r.names)+len(r.prefixes) == 0 {
			t.Errorf("rule %+v lacks a group, a reason or names", r)
		}
		if seen[r.group] {
			t.Errorf("group %q appears twice", r.group)
		}
		seen[r.group] = true
	}
}
