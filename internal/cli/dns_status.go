package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newDNSStatusCmd(env Env) *cobra.Command {
	var f dnsFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the running resolver's listeners, policies, inventory size and per-stage counters",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, ctx, done, err := f.connect(cmd, env)
			if err != nil {
				return err
			}
			defer done()
			st, err := c.Status(ctx)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			for _, l := range st.Listeners {
				fmt.Fprintf(tw, "listener\t%s\t%s (udp, tcp)\n", l.Name, l.UDP)
			}
			for _, p := range st.Policies {
				fmt.Fprintf(tw, "policy\t%s\tmode %s, default %s, hold first seen %v, hold ttl %ds, block %s, %d allow and %d deny patterns\n",
					p.Name, p.Mode, p.Default, p.HoldFirstSeen, p.HoldTTL, strings.Join(p.BlockAddress, " "), p.AllowPatterns, p.DenyPatterns)
			}
			fmt.Fprintf(tw, "inventory\t%d names\t\n", st.Inventory)
			for _, s := range st.Stages {
				fmt.Fprintf(tw, "stage\t%s\t%d queries, %d answered here, %d errors\n", s.Name, s.Queries, s.Answered, s.Errors)
			}
			return tw.Flush()
		},
	}
	f.add(cmd, false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "the status as JSON")
	return cmd
}
