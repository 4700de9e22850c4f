package policy

// Standing is what the inventory already knows about a name.
type Standing uint8

// Standings, from the inventory's status and whether a person set it.
const (
	// Unknown: never seen, or seen with no verdict that still binds (an
	// earlier allow-list or default decision is re-evaluated every time).
	Unknown Standing = iota
	// Learned: seen and allowed while learning (or by the default); part
	// of the baseline.
	Learned
	// Held: seen in enforce mode and held; a person has not decided yet.
	Held
	// Approved: a person approved it (approve, baseline import).
	Approved
	// Denied: a person denied it.
	Denied
)

// Verdict is what happens to the query.
type Verdict uint8

// Verdicts.
const (
	// Resolve forwards the query (or answers from the cache).
	Resolve Verdict = iota
	// Hold answers with the block address and the hold TTL; the name is
	// held for a person to approve. Never forwarded.
	Hold
	// Refuse answers with the block address; never forwarded.
	Refuse
)

// String returns the verdict as events name it.
func (v Verdict) String() string {
	switch v {
	case Resolve:
		return "allow"
	case Hold:
		return "hold"
	default:
		return "deny"
	}
}

// Decision is the outcome for one name, with the rule that decided it.
type Decision struct {
	Verdict Verdict
	// Rule names what decided: "deny:PATTERN", "person:denied",
	// "allow:PATTERN", "template:NAME@V", "person:approved", "mode:learn",
	// "baseline", "hold_first_seen" or "default:allow|deny".
	Rule string
}

// Rules that are not list patterns.
const (
	RulePersonDenied   = "person:denied"
	RulePersonApproved = "person:approved"
	RuleLearn          = "mode:learn"
	RuleBaseline       = "baseline"
	RuleHold           = "hold_first_seen"
	RuleDefaultAllow   = "default:allow"
	RuleDefaultDeny    = "default:deny"
)

// Decide applies p to name (normalized) that the inventory knows as s.
// The order, first match wins:
//
//  1. the deny list;
//  2. a person's deny (so a deny always beats an allow);
//  3. the allow list, including imported templates;
//  4. a person's approval;
//  5. learn mode: allow (the caller records the name as learned);
//  6. enforce mode: a learned name (the baseline) resolves;
//  7. enforce mode with HoldFirstSeen: hold;
//  8. enforce mode otherwise: the default action.
//
// A held name stays held (step 7) until a person decides; with
// HoldFirstSeen off it gets the default action like any other.
func (p *Policy) Decide(name string, s Standing) Decision {
	if r, ok := p.Deny.Match(name); ok {
		return Decision{Refuse, r}
	}
	if s == Denied {
		return Decision{Refuse, RulePersonDenied}
	}
	if r, ok := p.Allow.Match(name); ok {
		return Decision{Resolve, r}
	}
	if s == Approved {
		return Decision{Resolve, RulePersonApproved}
	}
	if p.Mode == Learn {
		return Decision{Resolve, RuleLearn}
	}
	if s == Learned {
		return Decision{Resolve, RuleBaseline}
	}
	if p.HoldFirstSeen {
		return Decision{Hold, RuleHold}
	}
	if p.Default == Allow {
		return Decision{Resolve, RuleDefaultAllow}
	}
	return Decision{Refuse, RuleDefaultDeny}
}
