package approval

import "sync"

// DefaultMaxGrants bounds the grants one daemon keeps.
const DefaultMaxGrants = 4096

// Grants remembers "always" answers: exact command strings a person
// allowed for the rest of one session. A grant never covers a prefix, a
// similar command or another session, and lasts only as long as the
// daemon. It is safe for concurrent use.
type Grants struct {
	mu  sync.Mutex
	max int
	set map[grantKey]struct{}
}

type grantKey struct{ session, command string }

// NewGrants returns an empty store that keeps at most max grants
// (DefaultMaxGrants when max <= 0).
func NewGrants(max int) *Grants {
	if max <= 0 {
		max = DefaultMaxGrants
	}
	return &Grants{max: max, set: make(map[grantKey]struct{})}
}

// Has reports whether command was granted in session, byte for byte.
func (g *Grants) Has(session, command string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.set[grantKey{session, command}]
	return ok
}

// Add records a grant. It reports false when the store is full, in which
// case the person's "always" counts only this once.
func (g *Grants) Add(session, command string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := grantKey{session, command}
	if _, ok := g.set[k]; ok {
		return true
	}
	if len(g.set) >= g.max {
		return false
	}
	g.set[k] = struct{}{}
	return true
}

// Len returns how many grants are recorded.
func (g *Grants) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.set)
}
