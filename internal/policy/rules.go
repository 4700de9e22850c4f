package policy

import (
	"regexp"
	"strings"
)

// rule is one local allow or deny rule, from a --allow/--deny flag or from
// the policy file. A prefix rule matches a simple command whose first words
// (after wrappers such as env or timeout) are exactly its words; a regex
// rule matches the raw command string, unanchored, as written.
type rule struct {
	allow  bool
	prefix []string       // nil for a regex rule
	re     *regexp.Regexp // nil for a prefix rule
	source string         // where it was written: "--allow", "policy.yaml:12"
	reason string         // the file's words for the agent, if any
}

// id is the rule's part of a verdict's Rule: "allow-prefix/go test",
// "deny-regex/^rm ".
func (r *rule) id() string {
	kind := "deny"
	if r.allow {
		kind = "allow"
	}
	if r.re != nil {
		return kind + "-regex/" + r.re.String()
	}
	return kind + "-prefix/" + strings.Join(r.prefix, " ")
}

// text is the rule as a person wrote it, with where.
func (r *rule) text() string {
	what := strings.Join(r.prefix, " ")
	if r.re != nil {
		what = r.re.String()
	}
	return what + " (" + r.source + ")"
}

// matchPrefix reports whether argv, a command's words after its wrappers,
// begins with the rule's words. name turns the first word into the name
// it runs; for deny rules a word whose value only bash knows matches
// anything, so that "git $cmd" cannot slip past a "git push" rule.
func (r *rule) matchPrefix(argv []word, name func(*word) string, unknownMatches bool) bool {
	if len(argv) < len(r.prefix) {
		return false
	}
	for i, want := range r.prefix {
		w := &argv[i]
		if unknownMatches && !w.known() {
			continue
		}
		got := w.value
		if i == 0 {
			got = name(w)
		} else if !w.literal() && !unknownMatches {
			return false
		}
		if got != want {
			return false
		}
	}
	return true
}

// ruleList is the local rules in the order they decide: flags first, then
// the policy file, each in the order written.
type ruleList []*rule

func (l ruleList) count(allow bool) int {
	n := 0
	for _, r := range l {
		if r.allow == allow {
			n++
		}
	}
	return n
}

// rawMatch returns the first regex rule of the kind that matches command.
func (l ruleList) rawMatch(allow bool, command string) *rule {
	for _, r := range l {
		if r.allow == allow && r.re != nil && r.re.MatchString(command) {
			return r
		}
	}
	return nil
}

// prefixes returns the prefix rules of the kind.
func (l ruleList) prefixes(allow bool) []*rule {
	var out []*rule
	for _, r := range l {
		if r.allow == allow && r.prefix != nil {
			out = append(out, r)
		}
	}
	return out
}
