package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/agentdns/admin"
)

// newDNSDecideCmd is `dns approve` or `dns deny`.
func newDNSDecideCmd(env Env, verb string) *cobra.Command {
	var f dnsFlags
	var pol string
	short := map[string]string{
		"approve": "Approve NAME under a policy: it resolves from now on (a deny list entry still wins)",
		"deny":    "Deny NAME under a policy: it gets the block address from now on, whatever the allow list says",
	}[verb]
	cmd := &cobra.Command{
		Use:   verb + " NAME --policy P",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pol == "" {
				return errors.New("--policy is required")
			}
			c, ctx, done, err := f.connect(cmd, env)
			if err != nil {
				return err
			}
			defer done()
			decide := c.Approve
			if verb == "deny" {
				decide = c.Deny
			}
			e, err := decide(ctx, pol, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s  %s under %s (seen %d times)\n", e.Status, e.Name, e.Policy, e.Count)
			return nil
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&pol, "policy", "", "the policy (required)")
	return cmd
}

func newDNSModeCmd(env Env) *cobra.Command {
	return newDNSPolicySettingCmd(env, "mode POLICY learn|enforce",
		"Switch a policy between learn and enforce, at once; it stays so across restarts",
		(*admin.Client).SetMode)
}

func newDNSDefaultCmd(env Env) *cobra.Command {
	return newDNSPolicySettingCmd(env, "default POLICY allow|deny",
		"Set what an enforce-mode policy does with names no rule covers (when it does not hold them)",
		(*admin.Client).SetDefault)
}

// newDNSPolicySettingCmd is a verb that changes one setting of a running
// policy through the admin socket and prints the policy as it now stands.
func newDNSPolicySettingCmd(env Env, use, short string,
	set func(c *admin.Client, ctx context.Context, policy, value string) (admin.Policy, error)) *cobra.Command {
	var f dnsFlags
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ctx, done, err := f.connect(cmd, env)
			if err != nil {
				return err
			}
			defer done()
			p, err := set(c, ctx, args[0], args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "policy %s: mode %s, default %s, hold first seen %v\n", p.Name, p.Mode, p.Default, p.HoldFirstSeen)
			return nil
		},
	}
	f.add(cmd, false)
	return cmd
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}
