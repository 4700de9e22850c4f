package approval

import (
	"strings"
	"unicode/utf8"
)

// Choice is a person's answer to a prompt.
type Choice string

// The choices at a prompt. Anything a person types that is not one of
// them is ChoiceNo.
const (
	ChoiceOnce   Choice = "y" // run it this once
	ChoiceAlways Choice = "a" // run it, and this exact command string for the rest of the session
	ChoiceNo     Choice = "n" // do not run it
	ChoiceReason Choice = "d" // do not run it, and tell the agent why
)

// ParseChoice reads what a person typed: y/yes, a/always, d/deny (any
// case, surrounding blanks ignored). Everything else, the empty line
// included, is ChoiceNo.
func ParseChoice(line string) Choice {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return ChoiceOnce
	case "a", "always":
		return ChoiceAlways
	case "d", "deny":
		return ChoiceReason
	}
	return ChoiceNo
}

// MaxReason bounds the reason a person types for the agent, in bytes.
const MaxReason = 500

// CleanReason makes text a person typed fit to send to the agent and to
// write in the audit log: one line, no control, bidi or invisible
// characters, valid UTF-8, at most MaxReason bytes, blanks trimmed.
func CleanReason(text string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(text, "") {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			r = ' '
		case r < 0x20 || r == 0x7f || isC1(r) || hidden(r):
			continue
		}
		if b.Len()+utf8.RuneLen(r) > MaxReason {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// AnswerFor is the Answer for a person's choice, with the reason they
// typed for ChoiceReason. how is ApprovalUser, or how else the person was
// reached.
func AnswerFor(c Choice, reason string) Answer {
	switch c {
	case ChoiceOnce:
		return Answer{Approved: true, Approval: ApprovalUser}
	case ChoiceAlways:
		return Answer{Approved: true, Approval: ApprovalUser, Always: true}
	case ChoiceReason:
		if r := CleanReason(reason); r != "" {
			return Answer{Approval: ApprovalUser, Reason: "the person declined: " + r, PersonReason: r}
		}
	}
	return Answer{Approval: ApprovalUser, Reason: "the person at the keyboard declined"}
}

// Choice returns the choice that a's answer stands for: the inverse of
// AnswerFor, for passing an answer on.
func (a Answer) Choice() Choice {
	switch {
	case a.Approved && a.Always:
		return ChoiceAlways
	case a.Approved:
		return ChoiceOnce
	case a.PersonReason != "":
		return ChoiceReason
	}
	return ChoiceNo
}
