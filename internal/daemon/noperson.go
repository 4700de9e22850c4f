package daemon

import (
	"context"

	"github.com/sidecarhq/sidecar/internal/approval"
)

// noPerson is the approver of a daemon nobody watches: every question is
// answered no, as the prompt does when there is no terminal.
type noPerson struct{}

func (noPerson) Ask(context.Context, approval.Request) approval.Answer {
	return approval.Answer{Approval: "no_tty", Reason: "nobody can be asked: this daemon has no person attached"}
}
