//go:build linux

package host

import (
	"errors"
	"sync"
	"syscall"
)

// lingering remembers the process groups of finished commands whose
// background jobs are still running. It is safe for concurrent use.
type lingering struct {
	mu     sync.Mutex
	groups map[int]struct{}
}

func newLingering() *lingering { return &lingering{groups: make(map[int]struct{})} }

// keepIfAlive remembers pgid if any process is still in it. The leader has
// been reaped by now; a live member keeps the group id from being reused.
func (l *lingering) keepIfAlive(pgid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pruneLocked()
	if groupAlive(pgid) {
		l.groups[pgid] = struct{}{}
	}
}

// add remembers pgid while its leader is alive and unreaped, which keeps
// the id from being reused; reap settles it.
func (l *lingering) add(pgid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.groups[pgid] = struct{}{}
}

// reap runs reapLeader, which reaps the exited leader of group pgid, and
// forgets the group unless a member is left. Both happen under the lock,
// so killAll never signals the id between the reap and that check, when
// it could already name another group.
func (l *lingering) reap(pgid int, reapLeader func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	reapLeader()
	if !groupAlive(pgid) {
		delete(l.groups, pgid)
	}
}

// killAll sends SIGKILL to every remembered group that is still alive.
func (l *lingering) killAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for pgid := range l.groups {
		signalGroup(pgid, syscall.SIGKILL)
		delete(l.groups, pgid)
	}
}

// pruneLocked forgets groups that have emptied since they were remembered,
// so the set stays as small as what is really running.
func (l *lingering) pruneLocked() {
	for pgid := range l.groups {
		if !groupAlive(pgid) {
			delete(l.groups, pgid)
		}
	}
}

// groupAlive reports whether process group pgid has a member. Signal 0
// only checks; EPERM would mean a member we cannot signal, which cannot
// happen for a group we created, but still means "alive".
func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
