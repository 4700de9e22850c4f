package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/statedir"
	"github.com/sidecarhq/sidecar/internal/token"
)

func newPairCmd(env Env) *cobra.Command {
	var stateDir, url, workspace string
	cmd := &cobra.Command{
		Use:   "pair",
		Short: "Print what the remote Hermes needs to reach this daemon (creates the token if missing)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := statedir.Resolve(stateDir, env.Getenv)
			if err != nil {
				return err
			}
			if err := statedir.Ensure(dir); err != nil {
				return err
			}
			tok, _, err := token.LoadOrCreate(dir, false)
			if err != nil {
				return err
			}
			ws, err := statedir.ExpandHome(workspace)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Daemon URL  %s\nToken       %s\n(token file %s)\n\n", url, tok, token.Path(dir))
			fmt.Fprintf(out, "On the machine where Hermes runs:\n\n")
			fmt.Fprintf(out, "  hermes config set plugins.entries.sidecar.settings.url %s\n", url)
			fmt.Fprintf(out, "  hermes config set plugins.entries.sidecar.settings.workspace %s\n", ws)
			fmt.Fprintf(out, "  hermes config set terminal.backend sidecar\n\n")
			fmt.Fprintf(out, "and give it the token in its environment (or Hermes's .env), not in config:\n\n")
			fmt.Fprintf(out, "  export SIDECAR_TOKEN=%s\n\n", tok)
			fmt.Fprintf(out, "The daemon listens on loopback; from a server, reach it through a tunnel, e.g.\n")
			fmt.Fprintf(out, "  ssh -R 8765:127.0.0.1:8765 your-server\n")
			return nil
		},
	}
	cmd.Flags().StringVar(&stateDir, "state-dir", "", "state directory (default ~/.hermes/plugin-data/sidecar, or $SIDECAR_STATE_DIR)")
	cmd.Flags().StringVar(&url, "url", defaultURL(), "the URL the remote side will use to reach this daemon")
	cmd.Flags().StringVar(&workspace, "workspace", ".", "the workspace the daemon serves")
	return cmd
}
