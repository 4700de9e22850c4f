package inventory

import (
	"hash/maphash"
	"net/netip"
	"sync"
	"time"
)

// maxName is the longest name a slot holds (DNS names are at most 253).
const maxName = 255

// shard is one lock's worth of the inventory. Its methods expect the
// caller to hold mu (read or write as the method says).
type shard struct {
	mu    sync.RWMutex
	seed  maphash.Seed
	idx   map[uint64]int32 // hash of policy and name → first slot
	slots []slot
	arena []byte
	more  map[int32][]addr16 // addresses past the inline ones
	dirty []int32

	pols, rules, types interner

	// collide, set only by tests, replaces the hash to force collisions.
	collide func(name string) uint64
}

func newShard(seed maphash.Seed) shard {
	return shard{seed: seed, idx: map[uint64]int32{}, more: map[int32][]addr16{}}
}

func (sh *shard) hash(pol uint16, name string) uint64 {
	if sh.collide != nil {
		return sh.collide(name)
	}
	var h maphash.Hash
	h.SetSeed(sh.seed)
	h.WriteByte(byte(pol))
	h.WriteByte(byte(pol >> 8))
	h.WriteString(name)
	return h.Sum64()
}

func (sh *shard) name(sl *slot) string {
	return string(sh.arena[sl.nameOff : sl.nameOff+uint32(sl.nameLen)])
}

// index returns the slot number for name under policy, or -1. Read lock.
func (sh *shard) index(pol uint16, name string, h uint64) int32 {
	i, ok := sh.idx[h]
	if !ok {
		return -1
	}
	for ; i >= 0; i = sh.slots[i].next {
		sl := &sh.slots[i]
		if sl.pol == pol && int(sl.nameLen) == len(name) && string(sh.arena[sl.nameOff:sl.nameOff+uint32(sl.nameLen)]) == name {
			return i
		}
	}
	return -1
}

// find returns the slot for name under policy, or nil. Read lock.
func (sh *shard) find(policy, name string) *slot {
	p, ok := sh.pols.find(policy)
	if !ok {
		return nil
	}
	if len(name) > maxName {
		name = name[:maxName]
	}
	if i := sh.index(p, name, sh.hash(p, name)); i >= 0 {
		return &sh.slots[i]
	}
	return nil
}

// slotFor returns the slot for name under policy, making it if needed, and
// marks it dirty. Names longer than maxName are cut there. Write lock.
func (sh *shard) slotFor(policy, name string) (i int32, created bool) {
	if len(name) > maxName {
		name = name[:maxName]
	}
	p := sh.pols.id(policy)
	h := sh.hash(p, name)
	i = sh.index(p, name, h)
	if i < 0 {
		created = true
		i = int32(len(sh.slots))
		next, ok := sh.idx[h]
		if !ok {
			next = -1
		}
		sh.slots = append(sh.slots, slot{pol: p, next: next, nameOff: uint32(len(sh.arena)), nameLen: uint8(len(name))})
		sh.arena = append(sh.arena, name...)
		sh.idx[h] = i
	}
	if sl := &sh.slots[i]; !sl.dirty {
		sl.dirty = true
		sh.dirty = append(sh.dirty, i)
	}
	return i, created
}

func (sh *shard) addAddrs(i int32, addrs []netip.Addr) {
	for _, a := range addrs {
		p := packAddr(a)
		if sh.slots[i].addAddr(p, sh.more[i]) {
			sh.more[i] = append(sh.more[i], p)
		}
	}
}

// observe records o. Write lock.
func (sh *shard) observe(policy, name string, o Observation) (first bool) {
	i, first := sh.slotFor(policy, name)
	var typ uint16
	if o.Type != "" {
		typ = sh.types.id(o.Type)
	}
	sh.slots[i].observe(o, toStat(o.Status), sh.rules.id(o.Rule), typ, o.Type != "")
	sh.addAddrs(i, o.Addresses)
	return first
}

// decide records a person's verdict. Write lock.
func (sh *shard) decide(policy, name string, st Status, rule string, now time.Time) {
	i, _ := sh.slotFor(policy, name)
	sl := &sh.slots[i]
	if sl.first == 0 {
		sl.first = nanos(now)
	}
	sl.status, sl.decided, sl.rule = toStat(st), true, sh.rules.id(rule)
}

// put restores e as it was saved. Write lock.
func (sh *shard) put(e Entry) {
	i, _ := sh.slotFor(e.Policy, e.Name)
	sl := &sh.slots[i]
	*sl = slot{pol: sl.pol, next: sl.next, nameOff: sl.nameOff, nameLen: sl.nameLen, dirty: sl.dirty}
	delete(sh.more, i)
	sl.status, sl.decided, sl.rule = toStat(e.Status), e.Decided, sh.rules.id(e.Rule)
	sl.first, sl.last, sl.count = nanos(e.FirstSeen), nanos(e.LastSeen), e.Count
	for _, t := range e.Types {
		sl.addType(sh.types.id(t))
	}
	sh.addAddrs(i, e.Addresses)
}

// entry builds the exported form of slot i. Read lock.
func (sh *shard) entry(i int32) Entry {
	sl := &sh.slots[i]
	e := Entry{
		Policy: sh.pols.str(sl.pol), Name: sh.name(sl), Status: sl.status.status(), Decided: sl.decided,
		Rule: sh.rules.str(sl.rule), FirstSeen: fromNanos(sl.first), LastSeen: fromNanos(sl.last), Count: sl.count,
	}
	for _, t := range sl.types[:sl.ntypes] {
		e.Types = append(e.Types, sh.types.str(t))
	}
	for j := 0; j < int(sl.naddrs) && j < inlineAddrs; j++ {
		e.Addresses = append(e.Addresses, sl.addrs[j].addr())
	}
	for _, p := range sh.more[i] {
		e.Addresses = append(e.Addresses, p.addr())
	}
	return e
}

// takeDirty returns the entries changed since the last call and clears
// the marks. Write lock.
func (sh *shard) takeDirty() []Entry {
	out := make([]Entry, 0, len(sh.dirty))
	for _, i := range sh.dirty {
		sh.slots[i].dirty = false
		out = append(out, sh.entry(i))
	}
	sh.dirty = sh.dirty[:0]
	return out
}

// clearDirty drops the change marks without reading the slots. Write lock.
func (sh *shard) clearDirty() {
	for _, i := range sh.dirty {
		sh.slots[i].dirty = false
	}
	sh.dirty = sh.dirty[:0]
}

// markDirty marks name under policy changed again (after a failed write).
// Write lock.
func (sh *shard) markDirty(policy, name string) {
	p, ok := sh.pols.find(policy)
	if !ok {
		return
	}
	if i := sh.index(p, name, sh.hash(p, name)); i >= 0 && !sh.slots[i].dirty {
		sh.slots[i].dirty = true
		sh.dirty = append(sh.dirty, i)
	}
}
