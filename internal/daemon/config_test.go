package daemon

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigCheck(t *testing.T) {
	ws := t.TempDir()
	base := func() Config {
		c := DefaultConfig()
		c.Workspace, c.StateDir = ws, filepath.Join(t.TempDir(), "state")
		return c
	}
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr []string
	}{
		{"defaults", func(*Config) {}, nil},
		{"bad mode", func(c *Config) { c.Approval = "sometimes" }, []string{"sometimes"}},
		{"timeout over max", func(c *Config) { c.MaxTimeout = time.Second }, []string{"longer than --max-timeout"}},
		{"negative timeout", func(c *Config) { c.Timeout = -time.Second }, []string{"must be positive"}},
		{"bad port", func(c *Config) { c.Port = 70000 }, []string{"not a TCP port"}},
		{"bad regex", func(c *Config) { c.Deny = []string{"("} }, []string{"--deny"}},
		{"missing workspace", func(c *Config) { c.Workspace = filepath.Join(ws, "nope") }, []string{"workspace"}},
		{"state dir in workspace", func(c *Config) { c.StateDir = filepath.Join(ws, ".sidecar") }, []string{"overlap"}},
		{"workspace in state dir", func(c *Config) { c.StateDir = filepath.Dir(ws) }, []string{"overlap"}},
		{"relative state dir", func(c *Config) { c.StateDir = "state" }, []string{"absolute"}},
		{"several at once", func(c *Config) { c.Approval, c.Port = "x", -1 }, []string{`"x"`, "not a TCP port"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base()
			tc.edit(&c)
			_, err := c.check()
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("check: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("check accepted a bad config")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
