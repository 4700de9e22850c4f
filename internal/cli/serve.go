package cli

import (
	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/daemon"
	"github.com/sidecarhq/sidecar/internal/statedir"
)

func newServeCmd(env Env) *cobra.Command {
	cfg := daemon.DefaultConfig()
	var stateDir string
	var timeout, maxTimeout, approvalWait float64
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the daemon: take commands from a remote Hermes over HTTP",
		Long: `Run the Sidecar daemon on this machine. Commands arrive over protocol 2, are classified
by the local policy, wait for your answer when the policy says ask, run in the workspace and
are written to the audit log. SIGINT or SIGTERM stops it: running commands are killed, the
audit log is flushed, and it exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := statedir.Resolve(stateDir, env.Getenv)
			if err != nil {
				return err
			}
			cfg.StateDir = dir
			cfg.Version = env.Version
			cfg.Timeout = seconds(timeout)
			cfg.MaxTimeout = seconds(maxTimeout)
			cfg.ApprovalWait = seconds(approvalWait)
			cfg.Stdout, cfg.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return daemon.Run(cmd.Context(), cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Host, "host", cfg.Host, "address to listen on (anything but loopback prints a warning)")
	f.IntVar(&cfg.Port, "port", cfg.Port, "TCP port; 0 picks a free one (the URL is printed)")
	f.StringVar(&cfg.Workspace, "workspace", ".", "directory commands run in and may not leave (~ is expanded here)")
	f.StringVar(&cfg.Approval, "approval", cfg.Approval, "ask | allow | read-only | deny")
	f.Float64Var(&timeout, "timeout", cfg.Timeout.Seconds(), "default command timeout in seconds")
	f.Float64Var(&maxTimeout, "max-timeout", cfg.MaxTimeout.Seconds(), "longest timeout a request may ask for, in seconds")
	f.IntVar(&cfg.MaxOutput, "max-output", cfg.MaxOutput, "bytes of output kept per command; the rest is counted and dropped")
	f.IntVar(&cfg.MaxConcurrent, "max-concurrent", cfg.MaxConcurrent, "commands in flight at once (prompts included); more get 429")
	f.Float64Var(&approvalWait, "approval-timeout", cfg.ApprovalWait.Seconds(), "seconds a prompt waits for your answer before it denies")
	f.StringArrayVar(&cfg.Allow, "allow", nil, "regular expression of commands to allow without asking (repeatable; never beats the hard-deny list)")
	f.StringArrayVar(&cfg.Deny, "deny", nil, "regular expression of commands to deny (repeatable)")
	f.StringArrayVar(&cfg.AllowHosts, "allow-host", nil, "extra Host header value to accept, e.g. a tunnel's name (repeatable)")
	f.BoolVar(&cfg.AllowOutsideWorkspace, "allow-outside-workspace", false, "let commands start outside the workspace")
	f.BoolVar(&cfg.NoAudit, "no-audit", false, "do not write the audit log")
	f.BoolVar(&cfg.RotateToken, "rotate-token", false, "replace the token before serving (paired clients must pair again)")
	f.StringVar(&stateDir, "state-dir", "", "state directory (default ~/.hermes/plugin-data/sidecar, or $SIDECAR_STATE_DIR)")
	f.StringVar(&cfg.PolicyFile, "policy", "", "policy file with local rules (default: policy.yaml in the state directory, if it exists)")
	return cmd
}
