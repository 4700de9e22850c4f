package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
)

func newDNSInventoryCmd(env Env) *cobra.Command {
	var f dnsFlags
	var pol, status string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inventory",
		Short: "List every name the policies have seen, with status, counts and addresses",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			filter := inventory.Filter{Policy: pol}
			if status != "" {
				st, err := inventory.ParseStatus(status)
				if err != nil {
					return err
				}
				filter.Status = st
			}
			c, ctx, done, err := f.connect(cmd, env)
			if err != nil {
				return err
			}
			defer done()
			entries, err := c.Inventory(ctx, filter)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				for _, e := range entries {
					if err := enc.Encode(e); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "POLICY\tNAME\tSTATUS\tCOUNT\tFIRST SEEN\tLAST SEEN\tTYPES\tADDRESSES")
			for _, e := range entries {
				st := string(e.Status)
				if e.Decided {
					st += " (by you)"
				}
				var addrs []string
				for _, a := range e.Addresses {
					addrs = append(addrs, a.String())
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", e.Policy, e.Name, st, e.Count,
					stamp(e.FirstSeen), stamp(e.LastSeen), strings.Join(e.Types, ","), strings.Join(addrs, ","))
			}
			return tw.Flush()
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&pol, "policy", "", "only this policy")
	cmd.Flags().StringVar(&status, "status", "", "only names with this status: learned, approved, held or denied")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON entry per line")
	return cmd
}
