package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/client"
	"github.com/sidecarhq/sidecar/internal/daemon"
	"github.com/sidecarhq/sidecar/internal/demo"
)

func newDemoCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Start a throwaway daemon and show the whole round trip",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			d, err := daemon.StartEphemeral(cmd.Context(), env.Version, "allow")
			if err != nil {
				return err
			}
			defer func() {
				if cerr := d.Close(); err == nil && cerr != nil {
					err = cerr
				}
			}()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Sidecar demo: a throwaway daemon at %s (approval allow)\nworkspace %s\n\n", d.URL, d.Workspace)
			c, err := client.New(d.URL, d.Token.String())
			if err != nil {
				return err
			}
			ctx, cancel := contextWithTimeout(cmd, time.Minute)
			defer cancel()
			return demo.Run(ctx, c, d.Workspace, out)
		},
	}
}
