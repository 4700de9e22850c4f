// Package redact hides secrets in a command string before it is stored or
// shown, so that the audit log keeps what a command did without keeping the
// credentials it carried.
//
// Only the secret itself becomes [REDACTED]; the text around it stays, so a
// reader still sees which kind of secret was there and where:
//
//	curl -H 'Authorization: Bearer [REDACTED]' https://alice:[REDACTED]@host/
//	mysql --password=[REDACTED] -h db
//	export GITHUB_TOKEN=[REDACTED]
//	echo ghp_[REDACTED]
//
// Redaction is pattern matching on text, not shell parsing: it errs towards
// hiding a little too much rather than leaking, and it cannot find a secret
// that looks like ordinary text (a bare password passed positionally).
package redact

import "strings"

// Placeholder replaces every secret.
const Placeholder = "[REDACTED]"

// maxPasses bounds the fixpoint loop in Command. Two passes settle every input
// seen so far; the bound only guards against a future rule that never does.
const maxPasses = 8

// Command returns s with every secret it recognises replaced by Placeholder.
// It is idempotent: Command(Command(s)) == Command(s). It is safe for
// concurrent use.
func Command(s string) string {
	// One rule's replacement can complete a match for an earlier rule (a
	// token rewritten inside an assignment, say), so the rules run until
	// nothing changes; that is also what makes Command idempotent.
	for range maxPasses {
		next := rules.apply(s)
		if next == s {
			return s
		}
		s = next
	}
	return s
}

// apply runs every rule once, in order.
func (rs ruleSet) apply(s string) string {
	lower := strings.ToLower(s)
	for _, r := range rs {
		if !r.mayMatch(lower) {
			continue
		}
		if next := r.apply(s); next != s {
			s, lower = next, strings.ToLower(next)
		}
	}
	return s
}

// apply replaces the text of every participating group named "s" in every
// match of r with Placeholder and keeps all other text.
func (r rule) apply(s string) string {
	matches := r.re.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range matches {
		for _, g := range r.secretGroups {
			start, end := m[2*g], m[2*g+1]
			if start < 0 || start < last {
				continue // group did not take part in this match
			}
			b.WriteString(s[last:start])
			b.WriteString(Placeholder)
			last = end
		}
	}
	b.WriteString(s[last:])
	return b.String()
}
