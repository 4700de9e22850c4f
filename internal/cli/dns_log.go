package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/agentdns/events"
)

func newDNSLogCmd(env Env) *cobra.Command {
	var f dnsFlags
	var filter events.Filter
	var follow, asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Show Agent DNS's recent decisions (--follow to keep watching)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return fmt.Errorf("--limit must be at least 1")
			}
			dir, err := f.dir(env)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			var werr error
			show := func(e events.Event) {
				if werr == nil {
					werr = printEvent(out, e, asJSON)
				}
			}
			if follow {
				if err := events.Follow(cmd.Context(), dir, filter, limit, 250*time.Millisecond, show); err != nil {
					return err
				}
				return werr
			}
			evs, err := events.Tail(dir, filter, limit)
			if err != nil {
				return err
			}
			for _, e := range evs {
				show(e)
			}
			return werr
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&filter.Event, "event", "", "only this event: new_query, query, held, denied, refused, approved, mode, default, baseline_import")
	cmd.Flags().StringVar(&filter.Policy, "policy", "", "only this policy")
	cmd.Flags().BoolVar(&follow, "follow", false, "keep printing new events until interrupted")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the JSON records as stored")
	cmd.Flags().IntVar(&limit, "limit", 50, "how many of the newest matching events to show first")
	return cmd
}

func printEvent(w io.Writer, e events.Event, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(e)
	}
	ts := e.Time.Local().Format("2006-01-02 15:04:05")
	subject := e.Name
	if e.Type != "" {
		subject += " " + e.Type
	}
	if e.Detail != "" {
		subject = strings.TrimSpace(subject + " " + e.Detail)
	}
	tail := e.Rule
	if len(e.Answers) > 0 {
		tail += " -> " + strings.Join(e.Answers, ",")
	}
	_, err := fmt.Fprintf(w, "%s  %-10s %-16s %-22s %s  [%s]\n", ts, e.Event, e.Policy, e.Client, subject, tail)
	return err
}
