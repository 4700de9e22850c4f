package policy

import (
	"errors"
	"fmt"
)

// Mode is the local approval mode: what happens to a command that is neither
// hard-denied nor on the safe list.
type Mode string

// The approval modes.
const (
	ModeAsk      Mode = "ask"       // ask the person at the keyboard
	ModeAllow    Mode = "allow"     // run it
	ModeReadOnly Mode = "read-only" // refuse it: only the safe list runs
	ModeDeny     Mode = "deny"      // refuse every command
)

// ErrInvalidMode is returned (wrapped) by ParseMode and New for an unknown mode.
var ErrInvalidMode = errors.New("invalid approval mode")

// ParseMode parses a mode as spelled on the command line.
func ParseMode(s string) (Mode, error) {
	m := Mode(s)
	if m.valid() {
		return m, nil
	}
	return "", fmt.Errorf("%w %q: valid modes are ask, allow, read-only and deny", ErrInvalidMode, s)
}

func (m Mode) valid() bool {
	switch m {
	case ModeAsk, ModeAllow, ModeReadOnly, ModeDeny:
		return true
	}
	return false
}

// Decision is the classifier's answer for one command.
type Decision string

// The decisions. Ask means a person has to answer before the command runs.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// Approval kinds from the wire protocol that the classifier decides on its
// own. The others (user, grant, timeout, no_tty) belong to the approval step.
const (
	ByPolicy    = "policy"    // the safe list, or allow mode
	ByRule      = "rule"      // a local --allow or --deny regexp
	ByHardDeny  = "hard_deny" // a hard-deny category
	ByMode      = "mode"      // read-only or deny mode
	ByWorkspace = "workspace" // the cwd lies outside the workspace
)
