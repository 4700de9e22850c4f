package policy

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadPattern reports a list entry that is neither a name nor "*.suffix".
var ErrBadPattern = errors.New("bad name pattern")

// List is a set of name patterns: exact names ("api.openai.com") and
// suffix wildcards ("*.githubusercontent.com", which matches every name
// below githubusercontent.com but not githubusercontent.com itself). Each
// pattern remembers the rule that put it there, so a match can say why.
//
// A List is immutable after Build and safe for concurrent use.
type List struct {
	exact  map[string]string
	suffix map[string]string
}

// ListBuilder collects patterns for a List.
type ListBuilder struct {
	l List
}

// Add adds pattern with the rule to report when it matches. The first rule
// added for a pattern wins.
func (b *ListBuilder) Add(pattern, rule string) error {
	p := Normalize(strings.TrimSpace(pattern))
	if err := CheckPattern(p); err != nil {
		return err
	}
	if b.l.exact == nil {
		b.l.exact, b.l.suffix = map[string]string{}, map[string]string{}
	}
	m, key := b.l.exact, p
	if rest, ok := strings.CutPrefix(p, "*."); ok {
		m, key = b.l.suffix, rest
	}
	if _, dup := m[key]; !dup {
		m[key] = rule
	}
	return nil
}

// Build returns the List. The builder must not be used afterwards.
func (b *ListBuilder) Build() *List {
	l := b.l
	return &l
}

// Len returns the number of patterns.
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return len(l.exact) + len(l.suffix)
}

// Match reports the rule of the pattern that matches name (normalized),
// preferring an exact entry, then the longest suffix.
func (l *List) Match(name string) (rule string, ok bool) {
	if l == nil {
		return "", false
	}
	if r, ok := l.exact[name]; ok {
		return r, true
	}
	if len(l.suffix) == 0 {
		return "", false
	}
	// Walk parents from the longest: a.b.c tries b.c then c. Substrings of
	// name do not allocate.
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			if r, ok := l.suffix[name[i+1:]]; ok {
				return r, true
			}
		}
	}
	return "", false
}

// CheckPattern reports whether p (normalized) is a usable pattern: a
// domain name of letters, digits, '-' and '_' in labels of 1 to 63
// characters, at most 253 characters, optionally preceded by "*.".
func CheckPattern(p string) error {
	name := strings.TrimPrefix(p, "*.")
	if err := checkName(name); err != nil {
		return fmt.Errorf("%w: %q: %v", ErrBadPattern, p, err)
	}
	return nil
}

func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if len(name) > 253 {
		return errors.New("longer than 253 characters")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return errors.New("labels must have 1 to 63 characters")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("character %q not allowed (only a-z, 0-9, '-', '_'; a wildcard only as a leading \"*.\")", c)
			}
		}
	}
	return nil
}
