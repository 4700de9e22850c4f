package approval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

const (
	// maxAnswer bounds the answer line kept in memory; "yes" needs three.
	maxAnswer = 64
	// confirmWait bounds writing the one-line outcome after the answer.
	confirmWait = 2 * time.Second
)

// converse holds one prompt on an open terminal, in this order: make sure
// reading tty cannot stop the process, discard what was typed so far, show
// the prompt, read one line (and for d, a second line: the reason), and
// print the outcome. Every step that fails denies.
//
// Input is discarded just before the prompt is written rather than just
// after: otherwise an answer typed the moment the prompt appears could be
// thrown away with the early keys. Only keys arriving in the microseconds
// between the two steps escape the discard.
func (p *Prompter) converse(ctx context.Context, tty TTY, req Request) Answer {
	if err := checkForeground(tty); err != nil {
		reason := "the terminal could not be used for the approval prompt"
		if errors.Is(err, ErrNotForeground) {
			reason = "no terminal to ask on (sidecar is not the terminal's foreground job)"
		}
		return Answer{Approval: ApprovalNoTTY, Reason: reason, Err: err}
	}
	if err := tty.SetDeadline(time.Now().Add(p.wait)); err != nil {
		return Answer{
			Approval: ApprovalNoTTY,
			Reason:   "the terminal cannot time out an approval prompt",
			Err:      fmt.Errorf("set terminal deadline: %w", err),
		}
	}
	stop := wakeOnDone(ctx, tty)
	defer stop()

	if err := discardInput(tty); err != nil {
		return Answer{
			Approval: ApprovalNoTTY,
			Reason:   "the terminal could not be used for the approval prompt",
			Err:      err,
		}
	}
	if _, err := io.WriteString(tty, render(req, p.now().Local(), p.wait)); err != nil {
		if ctx.Err() != nil {
			return cancelled(ctx.Err())
		}
		return Answer{
			Approval: ApprovalNoTTY,
			Reason:   "the approval prompt could not be shown on the terminal",
			Err:      fmt.Errorf("show prompt: %w", err),
		}
	}

	line, err := readLine(tty, maxAnswer)
	ctxErr := ctx.Err()
	if ctxErr == nil && err == nil && ParseChoice(line) == ChoiceReason {
		line, err = p.readReason(tty)
		ctxErr = ctx.Err()
		if err == nil || errors.Is(err, errLineTooLong) {
			stop()
			a := AnswerFor(ChoiceReason, line)
			p.confirm(tty, "denied; the agent is told: "+Escape(a.Reason)+"\n")
			return a
		}
	}
	stop()
	switch {
	case ctxErr != nil:
		var w *Withdrawn
		if errors.As(context.Cause(ctx), &w) {
			p.confirm(tty, "\n"+Escape(w.Why)+"\n")
		} else {
			p.confirm(tty, "\nrequest cancelled: denied\n")
		}
		return cancelled(ctxErr)
	case err == nil && ParseChoice(line) == ChoiceOnce:
		p.confirm(tty, "approved\n")
		return AnswerFor(ChoiceOnce, "")
	case err == nil && ParseChoice(line) == ChoiceAlways:
		p.confirm(tty, "approved; this exact command runs without asking for the rest of the session\n")
		return AnswerFor(ChoiceAlways, "")
	case err == nil || errors.Is(err, errLineTooLong):
		p.confirm(tty, "denied\n")
		return AnswerFor(ChoiceNo, "")
	case errors.Is(err, os.ErrDeadlineExceeded):
		waited := formatDuration(p.wait)
		p.confirm(tty, "\nno answer in "+waited+": denied\n")
		return Answer{Approval: ApprovalTimeout, Reason: "nobody answered the approval prompt within " + waited}
	case errors.Is(err, io.EOF):
		// Ctrl-D, or a terminal that hung up; either way no yes.
		p.confirm(tty, "\nend of input: denied\n")
		return Answer{Approval: ApprovalUser, Reason: "the approval prompt's input ended without an answer"}
	default:
		p.confirm(tty, "\nterminal read failed: denied\n")
		return Answer{
			Approval: ApprovalNoTTY,
			Reason:   "the terminal failed while waiting for an answer",
			Err:      err,
		}
	}
}

// readReason asks for the reason of a d answer, with a fresh wait.
func (p *Prompter) readReason(tty TTY) (string, error) {
	if err := tty.SetDeadline(time.Now().Add(p.wait)); err != nil {
		return "", fmt.Errorf("set terminal deadline: %w", err)
	}
	if _, err := io.WriteString(tty, reasonLine); err != nil {
		return "", fmt.Errorf("show reason prompt: %w", err)
	}
	return readLine(tty, 4*MaxReason)
}

// Withdrawn is the cause (see context.WithCancelCause) that tells a shown
// prompt its request was answered or ended elsewhere; the prompt prints
// Why instead of asking on.
type Withdrawn struct{ Why string }

func (w *Withdrawn) Error() string { return "withdrawn: " + w.Why }

// wakeOnDone makes a blocked write or read on tty return as soon as ctx
// ends, by moving its deadline into the past. The returned stop undoes that
// and returns only once a wake-up in flight has finished, so a deadline set
// after stop is not overwritten. stop may be called more than once.
func wakeOnDone(ctx context.Context, tty TTY) (stop func()) {
	woken := make(chan struct{})
	stopAfter := context.AfterFunc(ctx, func() {
		_ = tty.SetDeadline(time.Unix(1, 0)) // a failure leaves the Wait deadline, which still ends the read
		close(woken)
	})
	return sync.OnceFunc(func() {
		if !stopAfter() {
			<-woken
		}
	})
}

// confirm prints the outcome so the terminal shows what was decided. It is
// best effort: the answer is already decided and a terminal that cannot
// take one more line must not change it.
func (p *Prompter) confirm(tty TTY, text string) {
	_ = tty.SetDeadline(time.Now().Add(confirmWait))
	_, _ = io.WriteString(tty, text)
}
