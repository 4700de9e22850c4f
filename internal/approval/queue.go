package approval

import (
	"context"
	"slices"
	"sync"
)

// turnQueue hands out one turn at a time, in the order turns were asked
// for. The zero value is an idle queue. A plain mutex gives no order, and
// waiting on a channel gives none that Go promises, so the queue keeps its
// waiters in a slice.
type turnQueue struct {
	mu      sync.Mutex
	busy    bool
	waiting []chan struct{} // closed to hand that waiter the turn
}

// acquire waits for the caller's turn. It returns ctx.Err() if ctx ends
// first, in which case the caller does not hold a turn.
func (q *turnQueue) acquire(ctx context.Context) error {
	q.mu.Lock()
	if !q.busy {
		q.busy = true
		q.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	q.waiting = append(q.waiting, ready)
	q.mu.Unlock()

	select {
	case <-ready:
		return nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	if i := slices.Index(q.waiting, ready); i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
		q.mu.Unlock()
		return ctx.Err()
	}
	q.mu.Unlock()
	// release handed us the turn just as ctx ended: pass it on, or the
	// next waiter would wait forever.
	q.release()
	return ctx.Err()
}

// release ends the caller's turn and hands it to the longest waiter.
func (q *turnQueue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 {
		q.busy = false
		return
	}
	next := q.waiting[0]
	q.waiting = slices.Delete(q.waiting, 0, 1)
	close(next)
}
