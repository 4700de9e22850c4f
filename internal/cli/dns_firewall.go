package cli

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/agentdns/firewall"
)

func newDNSFirewallCmd(env Env) *cobra.Command {
	var f dnsFlags
	var printRules, apply bool
	o := firewall.Options{AllowLoopback: true}
	var uids []uint
	cmd := &cobra.Command{
		Use:   "firewall --print [--apply]",
		Short: "Print (and --apply) the nftables ruleset that stops DNS from going around Agent DNS",
		Long: `Prints an nftables ruleset: only Agent DNS's listeners may be asked on port 53 (udp and tcp);
every other DNS query and all DNS over TLS (853) are dropped and counted. With --raw-ip (for
enforce mode) connections to any address Agent DNS did not answer for an approved name are
dropped and counted too; run "sidecar dns serve --fill-nft-set" so the approved sets fill
before each answer is sent. After the ruleset come, as comments, the systemd-resolved
drop-in and the Docker daemon "dns" setting that point this host and its containers at
Agent DNS. --apply loads the ruleset with nft (root), replacing the table whole.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !printRules && !apply {
				return errors.New("pass --print to see the ruleset (and --apply to load it)")
			}
			dir, err := f.dir(env)
			if err != nil {
				return err
			}
			cfg, _, err := f.load(dir)
			if err != nil {
				return err
			}
			live := liveListeners(cmd, f, env, cfg)
			for _, l := range cfg.Listeners {
				o.Resolvers = append(o.Resolvers, live[l.Name])
			}
			for _, u := range uids {
				o.ExemptUIDs = append(o.ExemptUIDs, uint32(u))
			}
			rules, err := firewall.Ruleset(o)
			if err != nil {
				return err
			}
			if printRules {
				fmt.Fprint(cmd.OutOrStdout(), rules)
				fmt.Fprint(cmd.OutOrStdout(), extras(o.Resolvers))
			}
			if apply {
				if err := firewall.Apply(cmd.Context(), rules, nil); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "loaded table inet %s\n", o.Table)
			}
			return nil
		},
	}
	f.add(cmd, true)
	fl := cmd.Flags()
	fl.BoolVar(&printRules, "print", false, "print the ruleset, the systemd-resolved drop-in and the Docker setting")
	fl.BoolVar(&apply, "apply", false, "load the ruleset with nft -f - (needs root)")
	fl.StringVar(&o.Table, "table", firewall.DefaultTable, "nftables table (family inet) the ruleset owns")
	fl.StringVar(&o.Hook, "hook", firewall.HookOutput, "output (this host's processes) or forward (traffic routed through it: sandboxes, containers)")
	fl.UintSliceVar(&uids, "exempt-uid", nil, "user whose traffic passes (the user Agent DNS runs as, so it reaches its upstreams); repeatable")
	fl.BoolVar(&o.RawIP, "raw-ip", false, "enforce mode: drop connections to addresses Agent DNS did not answer for an approved name")
	fl.BoolVar(&o.AllowLoopback, "allow-loopback", true, "with --raw-ip: let loopback traffic through")
	fl.DurationVar(&o.SetTimeout, "set-timeout", firewall.DefaultSetTimeout, "how long an approved address stays in its set")
	return cmd
}

// extras renders the drop-in and the Docker setting as nft comments, so
// the whole output still loads with nft -f.
func extras(resolvers []netip.AddrPort) string {
	var b strings.Builder
	comment := func(s string) {
		for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			b.WriteString("# " + line + "\n")
		}
	}
	b.WriteString("\n")
	comment(firewall.ResolvedDropIn(resolvers))
	b.WriteString("\n")
	setting, note := firewall.DockerDaemon(resolvers)
	comment("/etc/docker/daemon.json (merge with what is there), then: systemctl restart docker")
	comment(setting)
	if note != "" {
		comment(note)
	}
	return b.String()
}
