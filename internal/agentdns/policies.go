package agentdns

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sidecarhq/sidecar/internal/agentdns/config"
	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

// OverridesFile holds the modes and default actions a person set at run
// time (sidecar dns mode, sidecar dns default); they outlive a restart and
// win over dns.yaml until changed again.
const OverridesFile = "overrides.json"

// policyState is one policy at run time. The compiled policy is swapped
// whole on a change, so the query path reads it without a lock.
type policyState struct {
	name    string
	clients policy.Clients
	block   blockSpec
	cur     atomic.Pointer[policy.Policy]
}

// override is what a person changed on one policy.
type override struct {
	Mode    policy.Mode   `json:"mode,omitempty"`
	Default policy.Action `json:"default_action,omitempty"`
	Time    time.Time     `json:"time"`
}

// policies is every policy in config order. Safe for concurrent use.
type policies struct {
	list   []*policyState
	byName map[string]*policyState

	mu        sync.Mutex // serialises changes and the overrides file
	path      string
	overrides map[string]override
}

// compilePolicy builds the run-time policy from its config.
func compilePolicy(c config.Policy, cat *templates.Catalog) (*policy.Policy, error) {
	var allow, deny policy.ListBuilder
	for _, p := range c.Allow {
		if err := allow.Add(p, "allow:"+policy.Normalize(p)); err != nil {
			return nil, fmt.Errorf("policy %s: %w", c.Name, err)
		}
	}
	for _, ref := range c.Templates {
		t, err := cat.Resolve(ref)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", c.Name, err)
		}
		for _, n := range t.Names {
			if err := allow.Add(n, t.Rule()); err != nil {
				return nil, fmt.Errorf("policy %s: template %s: %w", c.Name, t.Name, err)
			}
		}
	}
	for _, p := range c.Deny {
		if err := deny.Add(p, "deny:"+policy.Normalize(p)); err != nil {
			return nil, fmt.Errorf("policy %s: %w", c.Name, err)
		}
	}
	return &policy.Policy{
		Name: c.Name, Mode: c.Mode, Default: c.Default, HoldFirstSeen: c.HoldFirstSeen,
		Allow: allow.Build(), Deny: deny.Build(),
	}, nil
}

// newPolicies compiles cfg's policies and applies the overrides saved at
// overridesPath. notes say which overrides took effect, for the log.
func newPolicies(cfg *config.Config, cat *templates.Catalog, overridesPath string) (*policies, []string, error) {
	ps := &policies{byName: map[string]*policyState{}, path: overridesPath, overrides: map[string]override{}}
	b, err := os.ReadFile(overridesPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, nil, fmt.Errorf("read policy overrides: %w", err)
	default:
		if err := json.Unmarshal(b, &ps.overrides); err != nil {
			return nil, nil, fmt.Errorf("read policy overrides %s: %w", overridesPath, err)
		}
	}
	var notes []string
	for _, c := range cfg.Policies {
		p, err := compilePolicy(c, cat)
		if err != nil {
			return nil, nil, err
		}
		if o, ok := ps.overrides[c.Name]; ok {
			if o.Mode != "" && o.Mode != p.Mode {
				notes = append(notes, fmt.Sprintf("policy %s: mode %s (set at run time %s; dns.yaml says %s)", c.Name, o.Mode, o.Time.Format(time.RFC3339), p.Mode))
				p = p.WithMode(o.Mode)
			}
			if o.Default != "" && o.Default != p.Default {
				notes = append(notes, fmt.Sprintf("policy %s: default %s (set at run time %s; dns.yaml says %s)", c.Name, o.Default, o.Time.Format(time.RFC3339), p.Default))
				p = p.WithDefault(o.Default)
			}
		}
		st := &policyState{name: c.Name, clients: c.Clients, block: blockSpec{v4: c.BlockV4, v6: c.BlockV6, ttl: c.HoldTTL}}
		st.cur.Store(p)
		ps.list = append(ps.list, st)
		ps.byName[c.Name] = st
	}
	return ps, notes, nil
}

// selectFor returns the first policy whose clients match, or nil.
func (ps *policies) selectFor(listener string, addr netip.Addr) *policyState {
	for _, st := range ps.list {
		if st.clients.Match(listener, addr) {
			return st
		}
	}
	return nil
}

func (ps *policies) get(name string) (*policyState, error) {
	st, ok := ps.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownPolicy, name)
	}
	return st, nil
}

// change applies fn to the named policy, saves the override and returns
// the policy before and after.
func (ps *policies) change(name string, now time.Time, fn func(*policy.Policy, *override) *policy.Policy) (before, after *policy.Policy, err error) {
	st, err := ps.get(name)
	if err != nil {
		return nil, nil, err
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	before = st.cur.Load()
	o := ps.overrides[name]
	after = fn(before, &o)
	o.Time = now
	next := make(map[string]override, len(ps.overrides))
	for k, v := range ps.overrides {
		next[k] = v
	}
	next[name] = o
	b, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("encode policy overrides: %w", err)
	}
	// Durable first: a change the person was told about must survive.
	if err := writeFileAtomic(ps.path, b); err != nil {
		return nil, nil, err
	}
	ps.overrides = next
	st.cur.Store(after)
	return before, after, nil
}
