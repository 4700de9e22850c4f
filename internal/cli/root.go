// Package cli defines every verb of the `sidecar` command with cobra. Each
// verb parses its flags into a config value and calls the package that does
// the work; no verb holds logic of its own beyond presenting results.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Env is what the process hands the CLI; tests pass their own.
type Env struct {
	Version string
	Args    []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
}

// exitError carries a specific exit code (a FAIL in verify, say) without
// printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Execute runs the CLI and returns the process exit code.
func Execute(ctx context.Context, env Env) int {
	root := newRoot(env)
	root.SetArgs(env.Args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(env.Stderr, "sidecar: %v\n", err)
		return 1
	}
}

func newRoot(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "sidecar",
		Short: "Let a remote Hermes Agent run commands here, one at a time, through a local consent gate",
		Long: `Sidecar is the local half of "remote brain, local hands": a daemon on your machine that
runs one command at a time for a remote Hermes Agent. It classifies each command with a local
policy, asks you at the keyboard when it must, runs it in your workspace and writes every
decision to a hash-chained audit log.`,
		Version:       env.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newServeCmd(env),
		newPairCmd(env),
		newStatusCmd(env),
		newTestCmd(env),
		newLogCmd(env),
		newPolicyCmd(env),
		newApproveCmd(env),
		newDemoCmd(env),
		newVerifyCmd(env),
		newDNSCmd(env),
		newVersionCmd(env),
	)
	return root
}

func newVersionCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the protocol it speaks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "sidecar %s (protocol 2)\n", env.Version)
			return nil
		},
	}
}
