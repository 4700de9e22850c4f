package agentdns

import (
	"fmt"
	"time"

	"github.com/sidecarhq/sidecar/internal/agentdns/admin"
	"github.com/sidecarhq/sidecar/internal/agentdns/events"
	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
)

// control carries out a person's changes on the running resolver: it is
// the admin interface's admin.Control. Each change is durable, then takes
// effect, then is written to the event log.
type control struct {
	res       *Resolver
	events    *events.Writer
	listeners func() []admin.Listener
	now       func() time.Time
}

var _ admin.Control = (*control)(nil)

func (c *control) Status() admin.Status {
	s := admin.Status{Listeners: c.listeners(), Inventory: c.res.inv.Len()}
	for _, st := range c.res.policies.list {
		s.Policies = append(s.Policies, policyInfo(st))
	}
	for _, st := range c.res.Stats() {
		s.Stages = append(s.Stages, admin.Stage(st))
	}
	return s
}

func policyInfo(st *policyState) admin.Policy {
	p := st.cur.Load()
	info := admin.Policy{
		Name: p.Name, Mode: string(p.Mode), Default: string(p.Default), HoldFirstSeen: p.HoldFirstSeen,
		HoldTTL: st.block.ttl, AllowPatterns: p.Allow.Len(), DenyPatterns: p.Deny.Len(),
	}
	for _, a := range []string{st.block.v4.String(), st.block.v6.String()} {
		if a != "invalid IP" {
			info.BlockAddress = append(info.BlockAddress, a)
		}
	}
	return info
}

func (c *control) policy(name string) (*policyState, error) {
	st, err := c.res.policies.get(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", admin.ErrNotFound, err)
	}
	return st, nil
}

func (c *control) Inventory(f inventory.Filter) ([]inventory.Entry, error) {
	if f.Policy != "" {
		if _, err := c.policy(f.Policy); err != nil {
			return nil, err
		}
	}
	return c.res.inv.List(f), nil
}

func (c *control) Approve(pol, name string) (inventory.Entry, error) {
	return c.decide(pol, name, inventory.Approved, events.Approved)
}

func (c *control) Deny(pol, name string) (inventory.Entry, error) {
	return c.decide(pol, name, inventory.Denied, events.Denied)
}

func (c *control) decide(pol, name string, st inventory.Status, event string) (inventory.Entry, error) {
	if _, err := c.policy(pol); err != nil {
		return inventory.Entry{}, err
	}
	n := policy.Normalize(name)
	if err := policy.CheckPattern(n); err != nil || n[0] == '*' {
		return inventory.Entry{}, fmt.Errorf("%w: %w: %q: approve and deny take one name; put patterns in dns.yaml", admin.ErrInvalid, ErrBadName, name)
	}
	e, err := c.res.inv.Decide(pol, n, st, "person", c.now())
	if err != nil {
		return inventory.Entry{}, fmt.Errorf("record decision: %w", err)
	}
	c.events.Write(&events.Event{Time: c.now(), Event: event, Policy: pol, Client: events.ClientAdmin, Name: n, Rule: "person"})
	return e, nil
}

func (c *control) SetMode(pol, mode string) (admin.Policy, error) {
	m, err := policy.ParseMode(mode)
	if err != nil {
		return admin.Policy{}, fmt.Errorf("%w: %w", admin.ErrInvalid, err)
	}
	return c.change(pol, events.ModeChanged, func(p *policy.Policy) (*policy.Policy, string) {
		return p.WithMode(m), fmt.Sprintf("mode %s -> %s", p.Mode, m)
	}, func(o *override) { o.Mode = m })
}

func (c *control) SetDefault(pol, action string) (admin.Policy, error) {
	a, err := policy.ParseAction(action)
	if err != nil {
		return admin.Policy{}, fmt.Errorf("%w: %w", admin.ErrInvalid, err)
	}
	return c.change(pol, events.DefaultChanged, func(p *policy.Policy) (*policy.Policy, string) {
		return p.WithDefault(a), fmt.Sprintf("default %s -> %s", p.Default, a)
	}, func(o *override) { o.Default = a })
}

func (c *control) change(pol, event string, fn func(*policy.Policy) (*policy.Policy, string), save func(*override)) (admin.Policy, error) {
	st, err := c.policy(pol)
	if err != nil {
		return admin.Policy{}, err
	}
	var detail string
	_, _, err = c.res.policies.change(pol, c.now(), func(p *policy.Policy, o *override) *policy.Policy {
		next, d := fn(p)
		detail = d
		save(o)
		return next
	})
	if err != nil {
		return admin.Policy{}, fmt.Errorf("change policy %s: %w", pol, err)
	}
	c.events.Write(&events.Event{Time: c.now(), Event: event, Policy: pol, Client: events.ClientAdmin, Rule: "person", Detail: detail})
	return policyInfo(st), nil
}

// ExportBaseline lists what a person would carry to another policy: names
// that resolve without a person's further say (learned and approved) as
// approved, and a person's denials as denied. Held names are left out:
// nobody has looked at them yet.
func (c *control) ExportBaseline(pol string) (admin.Baseline, error) {
	if _, err := c.policy(pol); err != nil {
		return admin.Baseline{}, err
	}
	b := admin.Baseline{Version: admin.BaselineVersion, Policy: pol, Exported: c.now().UTC(), Names: []inventory.Decision{}}
	for _, e := range c.res.inv.List(inventory.Filter{Policy: pol}) {
		switch {
		case e.Decided && e.Status == inventory.Denied:
			b.Names = append(b.Names, inventory.Decision{Name: e.Name, Status: inventory.Denied})
		case e.Status == inventory.Learned, e.Status == inventory.Approved:
			b.Names = append(b.Names, inventory.Decision{Name: e.Name, Status: inventory.Approved})
		}
	}
	return b, nil
}

// ImportBaseline records every name in b as a person's decision under pol
// (b.Policy if pol is empty).
func (c *control) ImportBaseline(pol string, b admin.Baseline) (admin.Imported, error) {
	if pol == "" {
		pol = b.Policy
	}
	if _, err := c.policy(pol); err != nil {
		return admin.Imported{}, err
	}
	if b.Version != admin.BaselineVersion {
		return admin.Imported{}, fmt.Errorf("%w: baseline version %d: want %d", admin.ErrInvalid, b.Version, admin.BaselineVersion)
	}
	var im admin.Imported
	ds := make([]inventory.Decision, 0, len(b.Names))
	for i, d := range b.Names {
		n := policy.Normalize(d.Name)
		if err := policy.CheckPattern(n); err != nil || n[0] == '*' {
			return admin.Imported{}, fmt.Errorf("%w: baseline name %d %q is not a name", admin.ErrInvalid, i, d.Name)
		}
		switch d.Status {
		case inventory.Approved:
			im.Approved++
		case inventory.Denied:
			im.Denied++
		default:
			return admin.Imported{}, fmt.Errorf("%w: baseline name %q: status %q: want approved or denied", admin.ErrInvalid, d.Name, d.Status)
		}
		ds = append(ds, inventory.Decision{Name: n, Status: d.Status})
	}
	if err := c.res.inv.DecideMany(pol, ds, "baseline", c.now()); err != nil {
		return admin.Imported{}, fmt.Errorf("record baseline: %w", err)
	}
	c.events.Write(&events.Event{Time: c.now(), Event: events.BaselineImport, Policy: pol, Client: events.ClientAdmin, Rule: "person",
		Detail: fmt.Sprintf("%d approved, %d denied from %s", im.Approved, im.Denied, b.Policy)})
	return im, nil
}
