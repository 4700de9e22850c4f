package session

import (
	"os/user"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func lookupFrom(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

func TestBaseEnv(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Skipf("no current user to compare with: %v", err)
	}
	tests := []struct {
		name   string
		daemon map[string]string
		want   []string
	}{
		{
			name: "taken from the daemon, nothing else",
			daemon: map[string]string{
				"PATH": "/p", "HOME": "/h", "USER": "u", "SHELL": "/bin/zsh", "LANG": "de_DE.UTF-8",
				"TERM": "xterm", "TMPDIR": "/t", "AWS_SECRET_ACCESS_KEY": "secret", "OPENAI_API_KEY": "sk-x",
				"SSH_AUTH_SOCK": "/s", "LD_PRELOAD": "/evil.so",
			},
			want: []string{"HOME=/h", "LANG=de_DE.UTF-8", "PATH=/p", "SHELL=/bin/zsh", "TERM=xterm", "TMPDIR=/t", "USER=u"},
		},
		{
			name:   "defaults when unset",
			daemon: map[string]string{},
			want: []string{"HOME=" + u.HomeDir, "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/bash",
				"TERM=dumb", "TMPDIR=/tmp", "USER=" + u.Username},
		},
		{
			name:   "empty counts as unset",
			daemon: map[string]string{"PATH": "", "HOME": "", "USER": "me", "TERM": ""},
			want: []string{"HOME=" + u.HomeDir, "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/bash",
				"TERM=dumb", "TMPDIR=/tmp", "USER=me"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, BaseEnv(lookupFrom(tt.daemon))); diff != "" {
				t.Errorf("BaseEnv mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnv(t *testing.T) {
	base := []string{"HOME=/h", "PATH=/p", "TERM=dumb"}
	tests := []struct {
		name    string
		exports map[string]string
		want    []string
	}{
		{"no exports", nil, []string{"HOME=/h", "PATH=/p", "TERM=dumb"}},
		{"exports merged and sorted", map[string]string{"ZED": "z", "ABC": "a", "MID": "m=n"},
			[]string{"ABC=a", "HOME=/h", "MID=m=n", "PATH=/p", "TERM=dumb", "ZED=z"}},
		{"base wins and dangerous names dropped", map[string]string{"PATH": "/evil", "LD_PRELOAD": "/e.so", "GIT_PAGER": "sh", "OK": "1"},
			[]string{"HOME=/h", "OK=1", "PATH=/p", "TERM=dumb"}},
		{"sorted by name, not by whole entry", map[string]string{"A0": "x", "A": "y"},
			[]string{"A=y", "A0=x", "HOME=/h", "PATH=/p", "TERM=dumb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Env(base, tt.exports)); diff != "" {
				t.Errorf("Env mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// A base name that FilterExports would keep still wins over an export.
	if diff := cmp.Diff([]string{"FOO=base"}, Env([]string{"FOO=base"}, map[string]string{"FOO": "export"})); diff != "" {
		t.Errorf("Env base precedence mismatch (-want +got):\n%s", diff)
	}
}
