package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/agentdns/admin"
)

func newDNSBaselineCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Carry a policy's reviewed names to another policy or machine",
	}
	cmd.AddCommand(newDNSBaselineExportCmd(env), newDNSBaselineImportCmd(env))
	return cmd
}

func newDNSBaselineExportCmd(env Env) *cobra.Command {
	var f dnsFlags
	var pol string
	cmd := &cobra.Command{
		Use:   "export --policy P > FILE",
		Short: "Write the policy's learned and approved names (as approved) and your denials as JSON",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pol == "" {
				return errors.New("--policy is required")
			}
			c, ctx, done, err := f.connect(cmd, env)
			if err != nil {
				return err
			}
			defer done()
			b, err := c.ExportBaseline(ctx, pol)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(b)
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&pol, "policy", "", "the policy (required)")
	return cmd
}

func newDNSBaselineImportCmd(env Env) *cobra.Command {
	var f dnsFlags
	var pol string
	cmd := &cobra.Command{
		Use:   "import [FILE|-] [--policy P]",
		Short: "Record every name in a baseline file as your decision (into --policy, else the file's own policy)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader = env.Stdin
			if len(args) == 1 && args[0] != "-" {
				fh, err := os.Open(args[0])
				if err != nil {
					return fmt.Errorf("open baseline: %w", err)
				}
				defer fh.Close() // read-only
				r = fh
			}
			var b admin.Baseline
			dec := json.NewDecoder(r)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&b); err != nil {
				return fmt.Errorf("read baseline: %w", err)
			}
			c, ctx, done, err := f.connect(cmd, env)
			if err != nil {
				return err
			}
			defer done()
			im, err := c.ImportBaseline(ctx, pol, b)
			if err != nil {
				return err
			}
			target := pol
			if target == "" {
				target = b.Policy
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported into %s: %d approved, %d denied\n", target, im.Approved, im.Denied)
			return nil
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&pol, "policy", "", "import into this policy (default: the one the file came from)")
	return cmd
}
