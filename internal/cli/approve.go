package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/approval"
	"github.com/sidecarhq/sidecar/internal/approver"
	"github.com/sidecarhq/sidecar/internal/statedir"
)

// dialWait bounds connecting to the daemon's socket.
const dialWait = 5 * time.Second

func newApproveCmd(env Env) *cobra.Command {
	var stateDir string
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "approve",
		Short: "Answer a running daemon's approval prompts from this terminal",
		Long: `Attach to the daemon running with this state directory (over its Unix socket, which only
your user may use) and answer the commands waiting for approval, oldest first: y runs it once,
a runs it and this exact command again in the same session without asking, n denies, d denies
with a reason you type for the agent. The daemon's own terminal, if it has one, asks too: the
first answer wins and the other prompt is withdrawn. Ctrl-C detaches.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			conn, err := dialApprover(cmd.Context(), env, stateDir)
			if err != nil {
				return err
			}
			defer conn.Close()
			a := &approveSession{conn: conn, out: cmd.OutOrStdout(),
				prompter: approval.New(approval.Options{Wait: wait}), pending: map[uint64]approver.Pending{}}
			return a.run(cmd.Context())
		},
	}
	cmd.PersistentFlags().StringVar(&stateDir, "state-dir", "", "state directory of the daemon (default as for serve)")
	cmd.Flags().DurationVar(&wait, "wait", 10*time.Minute, "how long one prompt here waits before showing the next")
	cmd.AddCommand(newApproveListCmd(env, &stateDir), newApproveAnswerCmd(env, &stateDir))
	return cmd
}

func dialApprover(ctx context.Context, env Env, stateDir string) (*approver.Conn, error) {
	dir, err := statedir.Resolve(stateDir, env.Getenv)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, dialWait)
	defer cancel()
	conn, err := approver.Dial(ctx, filepath.Join(dir, approver.SocketName))
	if err != nil {
		return nil, fmt.Errorf("%w (is `sidecar serve` running with this state directory?)", err)
	}
	return conn, nil
}

func newApproveListCmd(env Env, stateDir *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the requests waiting for approval, oldest first, with how long each has waited",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			conn, err := dialApprover(cmd.Context(), env, *stateDir)
			if err != nil {
				return err
			}
			defer conn.Close()
			reqs, err := listPending(conn)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), reqs)
			}
			printPending(cmd.OutOrStdout(), reqs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the requests as JSON")
	return cmd
}

func newApproveAnswerCmd(env Env, stateDir *string) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "answer ID y|a|n|d",
		Short: "Answer one waiting request by its number (from list) or request id",
		Example: `  sidecar approve answer 3 y
  sidecar approve answer req-5f2c d --reason 'use make check instead'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			choice := approval.Choice(strings.ToLower(args[1]))
			switch choice {
			case approval.ChoiceOnce, approval.ChoiceAlways, approval.ChoiceNo, approval.ChoiceReason:
			default:
				return fmt.Errorf("answer %q: give one of y, a, n, d", args[1])
			}
			conn, err := dialApprover(cmd.Context(), env, *stateDir)
			if err != nil {
				return err
			}
			defer conn.Close()
			id, err := pendingID(conn, args[0])
			if err != nil {
				return err
			}
			if err := conn.Send(approver.Message{Type: approver.TypeAnswer, ID: id, Choice: choice, Reason: reason}); err != nil {
				return err
			}
			for {
				m, err := conn.Next()
				if err != nil {
					return err
				}
				switch {
				case m.Type == approver.TypeAnswered && m.ID == id:
					fmt.Fprintf(cmd.OutOrStdout(), "answered #%d: %s\n", id, choice)
					return nil
				case m.Type == approver.TypeError:
					return errors.New(m.Message)
				}
			}
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "with d: the reason the agent is told")
	return cmd
}

// listPending asks the daemon for the pending requests.
func listPending(conn *approver.Conn) ([]approver.Pending, error) {
	if err := conn.Send(approver.Message{Type: approver.TypeList}); err != nil {
		return nil, err
	}
	for {
		m, err := conn.Next()
		if err != nil {
			return nil, err
		}
		if m.Type == approver.TypeList {
			if m.Requests == nil {
				m.Requests = []approver.Pending{}
			}
			return m.Requests, nil
		}
	}
}

// pendingID turns a number or a request id into the daemon's number.
func pendingID(conn *approver.Conn, arg string) (uint64, error) {
	if n, err := strconv.ParseUint(strings.TrimPrefix(arg, "#"), 10, 64); err == nil {
		return n, nil
	}
	reqs, err := listPending(conn)
	if err != nil {
		return 0, err
	}
	for _, r := range reqs {
		if r.RequestID == arg {
			return r.ID, nil
		}
	}
	return 0, fmt.Errorf("no request %q is waiting", arg)
}

func printPending(out io.Writer, reqs []approver.Pending) {
	if len(reqs) == 0 {
		fmt.Fprintln(out, "no requests are waiting")
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tWAITING\tSESSION\tREQUEST\tCOMMAND")
	for _, r := range reqs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.ID, formatAge(time.Duration(r.AgeMS)*time.Millisecond),
			approval.Escape(r.Session), approval.Escape(r.RequestID), shorten(approval.Escape(r.Command), 60))
	}
	tw.Flush()
}

func formatAge(d time.Duration) string {
	return d.Truncate(time.Second).String()
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// approveSession is one interactive `sidecar approve`.
type approveSession struct {
	conn     *approver.Conn
	out      io.Writer
	prompter *approval.Prompter
	pending  map[uint64]approver.Pending
	events   chan approver.Message
	readErr  error
}

// run shows the waiting requests one at a time, oldest first, until the
// daemon goes away or ctx ends.
func (a *approveSession) run(ctx context.Context) error {
	fmt.Fprintf(a.out, "Attached to the Sidecar daemon (pid %d) for %s. Ctrl-C detaches.\n",
		a.conn.Hello.PID, approval.Escape(a.conn.Hello.Workspace))
	a.events = make(chan approver.Message)
	stop, readDone := make(chan struct{}), make(chan struct{})
	go a.read(stop, readDone)
	defer func() { close(stop); a.conn.Close(); <-readDone }()
	idle := false
	for {
		if len(a.pending) == 0 {
			if !idle {
				fmt.Fprintln(a.out, "Waiting for requests…")
				idle = true
			}
			select {
			case m, ok := <-a.events:
				if !ok {
					return a.gone()
				}
				a.note(m)
			case <-ctx.Done():
				return nil
			}
			continue
		}
		idle = false
		if err := a.askOldest(ctx); err != nil || ctx.Err() != nil {
			return err
		}
	}
}

// read forwards the daemon's messages until it goes away or stop closes.
func (a *approveSession) read(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	defer close(a.events)
	for {
		m, err := a.conn.Next()
		if err != nil {
			a.readErr = err
			return
		}
		select {
		case a.events <- m:
		case <-stop:
			return
		}
	}
}

func (a *approveSession) gone() error {
	if errors.Is(a.readErr, io.EOF) {
		fmt.Fprintln(a.out, "The daemon went away.")
		return nil
	}
	return a.readErr
}

// note applies a message to what is pending.
func (a *approveSession) note(m approver.Message) {
	switch m.Type {
	case approver.TypePending:
		if m.Request != nil {
			a.pending[m.Request.ID] = *m.Request
		}
	case approver.TypeResolved:
		delete(a.pending, m.ID)
	}
}

// askOldest prompts for the oldest pending request until it is answered
// here, answered or withdrawn elsewhere, or ctx ends.
func (a *approveSession) askOldest(ctx context.Context) error {
	ids := slices.Sorted(func(yield func(uint64) bool) {
		for id := range a.pending {
			if !yield(id) {
				return
			}
		}
	})
	cur := a.pending[ids[0]]
	if len(ids) > 1 {
		list := make([]approver.Pending, 0, len(ids))
		for _, id := range ids {
			list = append(list, a.pending[id])
		}
		fmt.Fprintf(a.out, "\n%d requests are waiting:\n", len(ids))
		printPending(a.out, list)
	}
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	answered := make(chan approval.Answer, 1)
	go func() { answered <- a.prompter.Ask(pctx, cur.ApprovalRequest()) }()
	for {
		select {
		case ans := <-answered:
			return a.deliver(cur, ans)
		case m, ok := <-a.events:
			if !ok {
				cancel(&approval.Withdrawn{Why: "the daemon went away"})
				<-answered
				return a.gone()
			}
			a.note(m)
			if m.Type == approver.TypeResolved && m.ID == cur.ID {
				cancel(&approval.Withdrawn{Why: "request #" + strconv.FormatUint(cur.ID, 10) + " was " + m.Outcome + ": " + m.Why})
			}
		}
	}
}

// deliver sends the person's answer for cur, unless the prompt ended
// without one.
func (a *approveSession) deliver(cur approver.Pending, ans approval.Answer) error {
	switch ans.Approval {
	case approval.ApprovalCancelled, approval.ApprovalTimeout:
		return nil // withdrawn, detached or not answered here: nothing to send
	case approval.ApprovalNoTTY:
		return fmt.Errorf("no terminal to ask on: %s", ans.Reason)
	}
	delete(a.pending, cur.ID) // answered here; do not ask again
	return a.conn.Send(approver.Message{Type: approver.TypeAnswer, ID: cur.ID, Choice: ans.Choice(), Reason: ans.PersonReason})
}
