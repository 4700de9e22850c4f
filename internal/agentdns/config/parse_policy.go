package config

import (
	"fmt"
	"net/netip"

	"gopkg.in/yaml.v3"

	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

func (r *reader) policy(n *yaml.Node, field string, cat *templates.Catalog) Policy {
	p := Policy{
		Mode:          policy.Learn,
		Default:       policy.Deny,
		HoldFirstSeen: true,
		BlockV4:       netip.IPv4Unspecified(),
		BlockV6:       netip.IPv6Unspecified(),
		HoldTTL:       DefaultHoldTTL,
		Line:          n.Line,
		Column:        n.Column,
	}
	var sawClients bool
	r.fields(n, field, map[string]func(*yaml.Node, string){
		"name": func(v *yaml.Node, f string) {
			s, ok := r.str(v, f)
			if ok && !policyName.MatchString(s) {
				r.errorf(v, f, "want 1 to 64 of a-z, 0-9, '-', '_' starting with a letter or digit, got %q", s)
			}
			p.Name = s
		},
		"clients": func(v *yaml.Node, f string) {
			sawClients = true
			p.Clients = r.clients(v, f)
		},
		"mode": func(v *yaml.Node, f string) {
			if s, ok := r.str(v, f); ok {
				m, err := policy.ParseMode(s)
				if err != nil {
					r.errorf(v, f, "want learn or enforce, got %q", s)
				}
				p.Mode = m
			}
		},
		"default_action": func(v *yaml.Node, f string) {
			if s, ok := r.str(v, f); ok {
				a, err := policy.ParseAction(s)
				if err != nil {
					r.errorf(v, f, "want allow or deny, got %q", s)
				}
				p.Default = a
			}
		},
		"hold_first_seen": func(v *yaml.Node, f string) { p.HoldFirstSeen, _ = r.boolean(v, f) },
		"hold_ttl": func(v *yaml.Node, f string) {
			if s, ok := r.integer(v, f, 0, MaxHoldTTL); ok {
				p.HoldTTL = uint32(s)
			}
		},
		"block_address": func(v *yaml.Node, f string) { p.BlockV4, p.BlockV6 = r.blockAddress(v, f) },
		"allow":         func(v *yaml.Node, f string) { p.Allow = r.patterns(v, f) },
		"deny":          func(v *yaml.Node, f string) { p.Deny = r.patterns(v, f) },
		"templates": func(v *yaml.Node, f string) {
			r.items(v, f, func(n *yaml.Node, f string) {
				s, ok := r.str(n, f)
				if !ok {
					return
				}
				if _, err := cat.Resolve(s); err != nil {
					r.errorf(n, f, "%v", err)
					return
				}
				p.Templates = append(p.Templates, s)
			})
		},
	})
	if !hasKey(n, "name") {
		r.errorf(n, field+".name", "missing")
	}
	if !sawClients {
		r.errorf(n, field+".clients", "missing: say which listeners or source addresses this policy applies to")
	}
	return p
}

func (r *reader) clients(n *yaml.Node, field string) policy.Clients {
	var c policy.Clients
	r.fields(n, field, map[string]func(*yaml.Node, string){
		"listeners": func(v *yaml.Node, f string) { c.Listeners = r.strs(v, f) },
		"sources": func(v *yaml.Node, f string) {
			r.items(v, f, func(n *yaml.Node, f string) {
				s, ok := r.str(n, f)
				if !ok {
					return
				}
				pfx, err := netip.ParsePrefix(s)
				if err != nil {
					a, aerr := netip.ParseAddr(s)
					if aerr != nil {
						r.errorf(n, f, "want an address or CIDR prefix, got %q", s)
						return
					}
					pfx = netip.PrefixFrom(a, a.BitLen())
				}
				if pfx != pfx.Masked() {
					r.errorf(n, f, "prefix %s has host bits set; did you mean %s?", pfx, pfx.Masked())
					return
				}
				c.Sources = append(c.Sources, pfx)
			})
		},
	})
	if len(c.Listeners) == 0 && len(c.Sources) == 0 {
		r.errorf(n, field, "want listeners or sources (or both)")
	}
	return c
}

func (r *reader) blockAddress(n *yaml.Node, field string) (v4, v6 netip.Addr) {
	r.items(n, field, func(v *yaml.Node, f string) {
		s, ok := r.str(v, f)
		if !ok {
			return
		}
		a, err := netip.ParseAddr(s)
		switch {
		case err != nil:
			r.errorf(v, f, "want an IP address, got %q", s)
		case a.Is4() && !v4.IsValid():
			v4 = a
		case a.Is6() && !a.Is4In6() && !v6.IsValid():
			v6 = a
		default:
			r.errorf(v, f, "want at most one IPv4 and one IPv6 address, got another: %s", s)
		}
	})
	return v4, v6
}

func (r *reader) patterns(n *yaml.Node, field string) []string {
	var out []string
	r.items(n, field, func(v *yaml.Node, f string) {
		s, ok := r.str(v, f)
		if !ok {
			return
		}
		if err := policy.CheckPattern(policy.Normalize(s)); err != nil {
			r.errorf(v, f, "%v", err)
			return
		}
		out = append(out, s)
	})
	return out
}

// crossCheck checks what spans sections: unique names, listeners that
// policies name, addresses bound twice.
func (r *reader) crossCheck(c *Config) {
	listeners := map[string]bool{}
	addrs := map[netip.AddrPort]bool{}
	for i, l := range c.Listeners {
		if listeners[l.Name] && l.Name != "" {
			r.errorAt(l.Line, l.Column, fmt.Sprintf("listeners[%d].name", i), "listener %q given twice", l.Name)
		}
		if addrs[l.Address] && l.Address.Port() != 0 {
			r.errorAt(l.Line, l.Column, fmt.Sprintf("listeners[%d].address", i), "address %s given twice", l.Address)
		}
		listeners[l.Name], addrs[l.Address] = true, true
	}
	names := map[string]bool{}
	for i, p := range c.Policies {
		if names[p.Name] && p.Name != "" {
			r.errorAt(p.Line, p.Column, fmt.Sprintf("policies[%d].name", i), "policy %q given twice", p.Name)
		}
		names[p.Name] = true
		for _, l := range p.Clients.Listeners {
			if !listeners[l] {
				r.errorAt(p.Line, p.Column, fmt.Sprintf("policies[%d].clients.listeners", i), "names listener %q, which is not in listeners", l)
			}
		}
	}
}
