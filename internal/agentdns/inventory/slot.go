package inventory

import (
	"net/netip"
	"time"
)

// The in-memory form of the inventory is built for the garbage collector.
// With 100,000 names, an Entry per name (strings, slices, netip.Addr) gave
// it about ten pointers per name to trace on every cycle, and the query
// path paid for that in throughput. A slot has no pointer at all: its name
// is an offset into the shard's name arena, rules, policies and query
// types are small indexes into per-shard tables, the first addresses are
// inline, and the shard's index is keyed by a hash. So the slots, the
// arena and the index are all memory the collector never scans.

// inlineAddrs is how many addresses a slot holds without allocating.
const inlineAddrs = 2

type slot struct {
	first, last int64 // unix nanoseconds; 0 for never
	count       uint64
	nameOff     uint32 // the name is arena[nameOff : nameOff+nameLen]
	next        int32  // next slot with the same hash, or -1
	nameLen     uint8
	pol, rule   uint16
	status      stat
	decided     bool
	dirty       bool
	ntypes      uint8
	naddrs      uint8
	types       [MaxTypes]uint16
	addrs       [inlineAddrs]addr16
}

// stat is a Status in one byte.
type stat uint8

const (
	sNone stat = iota
	sLearned
	sApproved
	sHeld
	sDenied
)

func toStat(s Status) stat {
	switch s {
	case Learned:
		return sLearned
	case Approved:
		return sApproved
	case Held:
		return sHeld
	case Denied:
		return sDenied
	}
	return sNone
}

func (s stat) status() Status {
	return [...]Status{"", Learned, Approved, Held, Denied}[s]
}

// addr16 is a netip.Addr without its pointer.
type addr16 struct {
	b  [16]byte
	v4 bool
}

func packAddr(a netip.Addr) addr16 {
	return addr16{b: a.As16(), v4: a.Is4()}
}

func (p addr16) addr() netip.Addr {
	a := netip.AddrFrom16(p.b)
	if p.v4 {
		return a.Unmap()
	}
	return a
}

// interner gives each distinct string a small number.
type interner struct {
	list []string
	idx  map[string]uint16
}

func (in *interner) id(s string) uint16 {
	if i, ok := in.idx[s]; ok {
		return i
	}
	if in.idx == nil {
		in.idx = map[string]uint16{}
	}
	// More than 65,535 distinct rules or types in one shard cannot happen
	// with a sane config; past that the last one is reused (only the
	// record's label suffers).
	if len(in.list) >= 1<<16-1 {
		return uint16(len(in.list) - 1)
	}
	i := uint16(len(in.list))
	in.list = append(in.list, s)
	in.idx[s] = i
	return i
}

func (in *interner) find(s string) (uint16, bool) {
	i, ok := in.idx[s]
	return i, ok
}

func (in *interner) str(i uint16) string { return in.list[i] }

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// observe applies one query's outcome; the shard supplies the interned ids.
func (sl *slot) observe(o Observation, st stat, rule, typ uint16, hasType bool) {
	if !sl.decided {
		sl.status = st
	}
	sl.rule = rule
	t := nanos(o.Time)
	if sl.first == 0 {
		sl.first = t
	}
	sl.last = t
	sl.count++
	if hasType {
		sl.addType(typ)
	}
}

func (sl *slot) addType(t uint16) {
	for _, x := range sl.types[:sl.ntypes] {
		if x == t {
			return
		}
	}
	if int(sl.ntypes) < MaxTypes {
		sl.types[sl.ntypes] = t
		sl.ntypes++
	}
}

// addAddr adds p inline if there is room; past that it reports whether
// the shard must keep p in the slot's overflow (more holds what is there).
func (sl *slot) addAddr(p addr16, more []addr16) (overflow bool) {
	n := int(sl.naddrs)
	for i := 0; i < n && i < inlineAddrs; i++ {
		if sl.addrs[i] == p {
			return false
		}
	}
	for _, x := range more {
		if x == p {
			return false
		}
	}
	switch {
	case n >= MaxAddresses:
		return false
	case n < inlineAddrs:
		sl.addrs[n] = p
		sl.naddrs++
		return false
	}
	sl.naddrs++
	return true
}
