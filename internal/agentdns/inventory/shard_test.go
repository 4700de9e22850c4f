package inventory

import (
	"fmt"
	"hash/maphash"
	"strings"
	"testing"
)

// TestShardHashCollisions forces every name onto one of two hashes, so
// lookups must walk the chains and compare names and policies.
func TestShardHashCollisions(t *testing.T) {
	sh := newShard(maphash.MakeSeed())
	sh.collide = func(name string) uint64 { return uint64(len(name) % 2) }
	var names []string
	for i := 0; i < 50; i++ {
		names = append(names, fmt.Sprintf("n%d.example", i))
	}
	for i, n := range names {
		pol := []string{"a", "b"}[i%2]
		sh.observe(pol, n, Observation{Time: t0, Status: Learned, Rule: "r" + n})
	}
	for i, n := range names {
		pol := []string{"a", "b"}[i%2]
		sl := sh.find(pol, n)
		if sl == nil || sh.name(sl) != n || sh.rules.str(sl.rule) != "r"+n {
			t.Fatalf("find(%s, %s) = %+v", pol, n, sl)
		}
		if other := sh.find([]string{"b", "a"}[i%2], n); other != nil {
			t.Fatalf("find under the wrong policy found %s", sh.name(other))
		}
	}
	if sh.find("a", "missing.example") != nil {
		t.Error("found a name never added")
	}
	if len(sh.idx) != 2 || len(sh.slots) != 50 {
		t.Errorf("%d index entries for %d slots; want 2 for 50", len(sh.idx), len(sh.slots))
	}
}

func TestLongNamesAreCut(t *testing.T) {
	sh := newShard(maphash.MakeSeed())
	long := strings.Repeat(`\000`, 100) + ".example"
	if !sh.observe("p", long, Observation{Time: t0, Status: Held}) || sh.observe("p", long, Observation{Time: t0, Status: Held}) {
		t.Error("first/second observe of a long name misreported")
	}
	sl := sh.find("p", long)
	if sl == nil || len(sh.name(sl)) != maxName || sl.count != 2 {
		t.Errorf("long name slot = %+v", sl)
	}
}
