package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

func newDNSTemplatesCmd(_ Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "templates",
		Short: "List the allow-list templates a policy can import (`templates show NAME` for one)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, err := templates.Load()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tVERSION\tNAMES\tDESCRIPTION")
			for _, t := range cat.List() {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", t.Name, t.Version, len(t.Names), t.Description)
			}
			return tw.Flush()
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show NAME",
		Short: "Print one template's names",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, err := templates.Load()
			if err != nil {
				return err
			}
			t, err := cat.Get(args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "# %s version %d: %s\n# import in dns.yaml with: templates: [%s@%d]\n", t.Name, t.Version, t.Description, t.Name, t.Version)
			for _, n := range t.Names {
				fmt.Fprintln(out, n)
			}
			return nil
		},
	})
	return cmd
}
