package cli

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/agentdns"
	"github.com/sidecarhq/sidecar/internal/agentdns/config"
	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
)

func newDNSVerifyCmd(env Env) *cobra.Command {
	var f dnsFlags
	var resolver, outside, name, pol string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check the fence from here: a first-seen name is held, an outside resolver is unreachable, an approved name resolves",
		Long: `Run this as the fenced client (the agent's user, or inside its sandbox). Three checks:
a fresh first-seen-<time>.example must get the block address; a query straight to an outside
resolver (default: the first plain upstream in dns.yaml) must be dropped; an approved name
(default: one from the policy's inventory) must resolve. Exits 1 if any check fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := f.dir(env)
			if err != nil {
				return err
			}
			cfg, _, err := f.load(dir)
			if err != nil {
				return err
			}
			p := cfg.Policies[0]
			if pol != "" {
				if p, err = findPolicy(cfg, pol); err != nil {
					return err
				}
			}
			o := agentdns.VerifyOptions{Approved: name, Timeout: timeout}
			if o.Resolver, err = addrOrDefault(resolver, defaultResolver(cfg, p, liveListeners(cmd, f, env, cfg))); err != nil {
				return fmt.Errorf("--resolver: %w", err)
			}
			if o.Outside, err = addrOrDefault(outside, defaultOutside(cfg)); err != nil {
				return fmt.Errorf("--outside: %w", err)
			}
			for _, cp := range cfg.Policies {
				for _, a := range []netip.Addr{cp.BlockV4, cp.BlockV6} {
					if a.IsValid() {
						o.Block = append(o.Block, a)
					}
				}
			}
			if o.Approved == "" {
				o.Approved = approvedName(cmd, f, env, p.Name)
			}
			out := cmd.OutOrStdout()
			failed := 0
			for _, r := range agentdns.Verify(cmd.Context(), o) {
				fmt.Fprintf(out, "%s  %s: %s\n", r.Status, r.Name, r.Detail)
				if r.Status == agentdns.Fail {
					failed++
				}
			}
			if failed > 0 {
				return exitError{1}
			}
			return nil
		},
	}
	f.add(cmd, true)
	cmd.Flags().StringVar(&resolver, "resolver", "", "Agent DNS address to ask (default: the policy's first listener)")
	cmd.Flags().StringVar(&outside, "outside", "", "a resolver the fence must block, IP:port (default: the first plain upstream)")
	cmd.Flags().StringVar(&name, "name", "", "an approved name that must resolve (default: one from the inventory)")
	cmd.Flags().StringVar(&pol, "policy", "", "the fenced client's policy (default: the first)")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Second, "how long a query may take; a dropped one takes this long")
	return cmd
}

func findPolicy(cfg *config.Config, name string) (config.Policy, error) {
	for _, p := range cfg.Policies {
		if p.Name == name {
			return p, nil
		}
	}
	return config.Policy{}, fmt.Errorf("no policy %q in %s", name, cfg.File)
}

func addrOrDefault(s string, def netip.AddrPort) (netip.AddrPort, error) {
	if s == "" {
		return def, nil
	}
	return netip.ParseAddrPort(s)
}

// defaultResolver is the policy's first listener, or the first listener,
// at the address it is bound to; a wildcard address is asked on loopback.
func defaultResolver(cfg *config.Config, p config.Policy, live map[string]netip.AddrPort) netip.AddrPort {
	l := live[cfg.Listeners[0].Name]
	if len(p.Clients.Listeners) > 0 {
		if a, ok := live[p.Clients.Listeners[0]]; ok {
			l = a
		}
	}
	if l.Addr().IsUnspecified() {
		lo := netip.MustParseAddr("127.0.0.1")
		if l.Addr().Is6() {
			lo = netip.IPv6Loopback()
		}
		l = netip.AddrPortFrom(lo, l.Port())
	}
	return l
}

func defaultOutside(cfg *config.Config) netip.AddrPort {
	for _, u := range cfg.Upstreams {
		if !u.TLS {
			return u.Address
		}
	}
	return netip.AddrPort{}
}

// approvedName picks a name the policy resolves, from the running
// resolver's inventory; "" if there is none (the check is then skipped).
func approvedName(cmd *cobra.Command, f dnsFlags, env Env, pol string) string {
	c, err := f.client(env)
	if err != nil {
		return ""
	}
	defer c.Close()
	ctx, cancel := adminContext(cmd)
	defer cancel()
	for _, st := range []inventory.Status{inventory.Approved, inventory.Learned} {
		entries, err := c.Inventory(ctx, inventory.Filter{Policy: pol, Status: st})
		if err != nil {
			return ""
		}
		for _, e := range entries {
			if len(e.Addresses) > 0 {
				return e.Name
			}
		}
	}
	return ""
}
