package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/daemon"
	"github.com/sidecarhq/sidecar/internal/verify"
)

func newVerifyCmd(env Env) *cobra.Command {
	var rf remoteFlags
	var remote bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check Sidecar's security properties against a throwaway daemon (or --remote the configured one)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			var target verify.Target
			if remote {
				url, tok, err := rf.resolve(env)
				if err != nil {
					return err
				}
				target = verify.Target{URL: url, Token: tok, Remote: true}
			} else {
				d, err := daemon.StartEphemeral(cmd.Context(), env.Version, "allow")
				if err != nil {
					return err
				}
				defer func() {
					if cerr := d.Close(); err == nil && cerr != nil {
						err = cerr
					}
				}()
				target = verify.Target{URL: d.URL, Token: d.Token.String(), Workspace: d.Workspace, StateDir: d.StateDir}
				fmt.Fprintf(cmd.OutOrStdout(), "Checking a throwaway daemon at %s\n", d.URL)
			}
			results, err := verify.Run(cmd.Context(), target, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			if n := verify.Failed(results); n > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%d of %d checks failed\n", n, len(results))
				return exitError{1}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "All %d checks passed.\n", len(results))
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().BoolVar(&remote, "remote", false, "check the configured daemon with the checks that change nothing")
	return cmd
}
