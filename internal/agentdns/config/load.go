package config

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

var policyName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Load reads and validates the file at path. Template references are
// checked against cat.
func Load(path string, cat *templates.Catalog) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read dns config: %w", err)
	}
	return Parse(path, b, cat)
}

// Parse validates data, naming file in errors. A problem is an *Error; with
// several, they are joined (errors.As finds the first).
func Parse(file string, data []byte, cat *templates.Catalog) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{File: file, Problem: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &Error{File: file, Problem: "empty file: want listeners, upstreams and policies"}
	}
	r := &reader{file: file}
	c := &Config{
		File:   file,
		Cache:  Cache{MaxEntries: DefaultCacheSize, MaxTTL: DefaultCacheMaxTT * time.Second},
		Events: Events{MaxSizeMB: DefaultEventsMB, MaxBackups: DefaultBackups},
	}
	root := doc.Content[0]
	var sawUpstreams, sawPolicies bool
	r.fields(root, "", map[string]func(*yaml.Node, string){
		"version": func(v *yaml.Node, f string) { r.integer(v, f, 1, 1) },
		"listeners": func(v *yaml.Node, f string) {
			r.items(v, f, func(n *yaml.Node, f string) { c.Listeners = append(c.Listeners, r.listener(n, f)) })
		},
		"upstreams": func(v *yaml.Node, f string) {
			sawUpstreams = true
			r.items(v, f, func(n *yaml.Node, f string) { c.Upstreams = append(c.Upstreams, r.upstream(n, f)) })
		},
		"cache":  func(v *yaml.Node, f string) { r.cache(v, f, &c.Cache) },
		"events": func(v *yaml.Node, f string) { r.events(v, f, &c.Events) },
		"policies": func(v *yaml.Node, f string) {
			sawPolicies = true
			r.items(v, f, func(n *yaml.Node, f string) { c.Policies = append(c.Policies, r.policy(n, f, cat)) })
		},
	})
	if len(c.Listeners) == 0 {
		c.Listeners = []Listener{{Name: "default", Address: netip.MustParseAddrPort(DefaultListen)}}
	}
	if !sawUpstreams || len(c.Upstreams) == 0 {
		r.errorf(root, "upstreams", "want at least one upstream resolver")
	}
	if !sawPolicies || len(c.Policies) == 0 {
		r.errorf(root, "policies", "want at least one policy")
	}
	r.crossCheck(c)
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	return c, nil
}

func (r *reader) listener(n *yaml.Node, field string) Listener {
	l := Listener{Line: n.Line, Column: n.Column}
	r.fields(n, field, map[string]func(*yaml.Node, string){
		"name": func(v *yaml.Node, f string) { l.Name, _ = r.str(v, f) },
		"address": func(v *yaml.Node, f string) {
			s, ok := r.str(v, f)
			if !ok {
				return
			}
			ap, err := netip.ParseAddrPort(s)
			if err != nil {
				r.errorf(v, f, "want IP:port (e.g. %s), got %q", DefaultListen, s)
				return
			}
			l.Address = ap
		},
	})
	for _, k := range []string{"name", "address"} {
		if !hasKey(n, k) {
			r.errorf(n, field+"."+k, "missing")
		}
	}
	return l
}

func (r *reader) upstream(n *yaml.Node, field string) Upstream {
	u := Upstream{Timeout: DefaultTimeout}
	var tlsLine *yaml.Node
	var sawAddress bool
	r.fields(n, field, map[string]func(*yaml.Node, string){
		"address": func(v *yaml.Node, f string) {
			sawAddress = true
			s, ok := r.str(v, f)
			if !ok {
				return
			}
			rest, isTLS := strings.CutPrefix(s, "tls://")
			port := uint16(53)
			if isTLS {
				port, tlsLine = 853, v
			}
			ap, err := parseHostPort(rest, port)
			if err != nil {
				r.errorf(v, f, "want IP, IP:port or tls://IP:port (a resolver is reached by address), got %q", s)
				return
			}
			u.Address, u.TLS = ap, isTLS
		},
		"server_name": func(v *yaml.Node, f string) { u.ServerName, _ = r.str(v, f) },
		"timeout_ms": func(v *yaml.Node, f string) {
			if ms, ok := r.integer(v, f, 50, 30000); ok {
				u.Timeout = time.Duration(ms) * time.Millisecond
			}
		},
	})
	if !sawAddress {
		r.errorf(n, field+".address", "missing")
	}
	if tlsLine != nil && u.ServerName == "" {
		r.errorf(tlsLine, field+".server_name", "a tls:// upstream needs the name its certificate carries")
	}
	return u
}

func parseHostPort(s string, port uint16) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap, nil
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.AddrPort{}, err
	}
	return netip.AddrPortFrom(a, port), nil
}

func (r *reader) cache(n *yaml.Node, field string, c *Cache) {
	r.fields(n, field, map[string]func(*yaml.Node, string){
		"max_entries": func(v *yaml.Node, f string) { c.MaxEntries, _ = r.integer(v, f, 0, 10_000_000) },
		"max_ttl": func(v *yaml.Node, f string) {
			if s, ok := r.integer(v, f, 0, 7*86400); ok {
				c.MaxTTL = time.Duration(s) * time.Second
			}
		},
	})
}

func (r *reader) events(n *yaml.Node, field string, e *Events) {
	r.fields(n, field, map[string]func(*yaml.Node, string){
		"max_size_mb": func(v *yaml.Node, f string) { e.MaxSizeMB, _ = r.integer(v, f, 1, 100_000) },
		"max_backups": func(v *yaml.Node, f string) { e.MaxBackups, _ = r.integer(v, f, 0, 10_000) },
		"max_age_days": func(v *yaml.Node, f string) {
			e.MaxAgeDays, _ = r.integer(v, f, 0, 36500)
		},
	})
}
