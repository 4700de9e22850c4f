package policy

import "fmt"

// Mode is how a policy treats names nobody has decided on yet.
type Mode string

// Modes.
const (
	// Learn allows every name not on the deny list and records it: the
	// inventory it builds is the baseline.
	Learn Mode = "learn"
	// Enforce resolves only names on the allow list, approved or learned;
	// the rest are held (HoldFirstSeen) or get the default action.
	Enforce Mode = "enforce"
)

// ParseMode returns the Mode named s.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Learn, Enforce:
		return m, nil
	}
	return "", fmt.Errorf("mode %q: want learn or enforce", s)
}

// Action is what a policy does with a name no rule covers.
type Action string

// Actions.
const (
	Allow Action = "allow"
	Deny  Action = "deny"
)

// ParseAction returns the Action named s.
func ParseAction(s string) (Action, error) {
	switch a := Action(s); a {
	case Allow, Deny:
		return a, nil
	}
	return "", fmt.Errorf("action %q: want allow or deny", s)
}

// Policy is one named policy, compiled. A Policy value is immutable: a
// change (a new mode, say) makes a new value with With*, so readers holding
// the old one never see a half-made change.
type Policy struct {
	Name          string
	Mode          Mode
	Default       Action
	HoldFirstSeen bool
	// Allow holds the allow list and the names of imported templates;
	// Deny the deny list.
	Allow, Deny *List
}

// WithMode returns a copy of p in mode m.
func (p *Policy) WithMode(m Mode) *Policy {
	c := *p
	c.Mode = m
	return &c
}

// WithDefault returns a copy of p with default action a.
func (p *Policy) WithDefault(a Action) *Policy {
	c := *p
	c.Default = a
	return &c
}
