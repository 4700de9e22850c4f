package cli

import (
	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/agentdns"
	"github.com/sidecarhq/sidecar/internal/agentdns/firewall"
)

func newDNSServeCmd(env Env) *cobra.Command {
	var f dnsFlags
	var fillSet bool
	var table string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the resolver on the configured listeners until SIGINT or SIGTERM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := f.dir(env)
			if err != nil {
				return err
			}
			cfg, cat, err := f.load(dir)
			if err != nil {
				return err
			}
			opts := agentdns.Options{Config: cfg, Dir: dir, Templates: cat, Log: cmd.ErrOrStderr()}
			if fillSet {
				opts.Sink = &firewall.SetSink{Table: table}
			}
			return agentdns.Run(cmd.Context(), opts)
		},
	}
	f.add(cmd, true)
	cmd.Flags().BoolVar(&fillSet, "fill-nft-set", false, "add the addresses answered under enforce-mode policies to the approved sets of the ruleset from dns firewall --raw-ip --apply, before each answer is sent")
	cmd.Flags().StringVar(&table, "nft-table", firewall.DefaultTable, "nftables table whose sets --fill-nft-set fills")
	return cmd
}
