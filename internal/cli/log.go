package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/audit"
	"github.com/sidecarhq/sidecar/internal/protocol"
	"github.com/sidecarhq/sidecar/internal/statedir"
)

func newLogCmd(env Env) *cobra.Command {
	var rf remoteFlags
	var local, asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Show recent audit records (from the daemon, or --local from the state dir)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return errors.New("--limit must be at least 1")
			}
			var recs []protocol.AuditRecord
			if local {
				dir, err := statedir.Resolve(rf.stateDir, env.Getenv)
				if err != nil {
					return err
				}
				stored, err := audit.ReadRecent(dir, limit)
				if err != nil {
					return err
				}
				for _, r := range stored {
					recs = append(recs, r.Wire())
				}
			} else {
				c, _, err := rf.client(env)
				if err != nil {
					return err
				}
				ctx, cancel := contextWithTimeout(cmd, 10*time.Second)
				defer cancel()
				resp, err := c.Audit(ctx, limit)
				if err != nil {
					return err
				}
				if !resp.Enabled {
					fmt.Fprintln(cmd.ErrOrStderr(), "sidecar: the daemon runs with --no-audit")
				}
				recs = resp.Records
			}
			return printRecords(cmd.OutOrStdout(), recs, asJSON)
		},
	}
	rf.add(cmd)
	cmd.Flags().BoolVar(&local, "local", false, "read the audit log in the local state dir instead of asking the daemon")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON record per line")
	cmd.Flags().IntVar(&limit, "limit", 20, "how many of the newest records")
	cmd.AddCommand(newLogVerifyCmd(env))
	return cmd
}

func newLogVerifyCmd(env Env) *cobra.Command {
	var stateDir string
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check the local audit log's hash chain and name the first bad record",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := statedir.Resolve(stateDir, env.Getenv)
			if err != nil {
				return err
			}
			rep, err := audit.Verify(dir)
			var chainErr *audit.ChainError
			switch {
			case errors.As(err, &chainErr):
				fmt.Fprintf(cmd.OutOrStdout(), "FAIL  %s line %d (seq %d): %s\n", chainErr.File, chainErr.Line, chainErr.Seq, chainErr.Problem)
				return exitError{1}
			case err != nil:
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "OK    %d records in %d files, seq %d..%d, head %s\n",
				rep.Records, rep.Files, rep.FirstSeq, rep.LastSeq, short(rep.Head))
			return nil
		},
	}
	cmd.Flags().StringVar(&stateDir, "state-dir", "", "state directory")
	return cmd
}

func printRecords(w io.Writer, recs []protocol.AuditRecord, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range recs {
		exit := "-"
		if r.ExitCode != nil {
			exit = fmt.Sprint(*r.ExitCode)
		}
		ts := r.Time
		if t, err := time.Parse(time.RFC3339Nano, r.Time); err == nil {
			ts = t.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(w, "%6d  %s  %-8s  %-5s %-9s exit %-4s %s  %q\n", r.Seq, ts, r.Event, r.Decision, r.Approval, exit, r.Session, r.Command)
	}
	return nil
}
