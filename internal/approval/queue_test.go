package approval

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// waitForWaiters waits until q has n waiters queued.
func waitForWaiters(t *testing.T, q *turnQueue, n int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		q.mu.Lock()
		got := len(q.waiting)
		q.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("queue has %d waiters, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestTurnQueueArrivalOrder(t *testing.T) {
	var q turnQueue
	if err := q.acquire(context.Background()); err != nil {
		t.Fatalf("first acquire: %v", err)
	}

	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	for i := range 5 {
		wg.Go(func() {
			if err := q.acquire(context.Background()); err != nil {
				t.Errorf("acquire %d: %v", i, err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			q.release()
		})
		// Queue them one by one so arrival order is known.
		waitForWaiters(t, &q, i+1)
	}
	q.release()
	wg.Wait()

	if diff := cmp.Diff([]int{0, 1, 2, 3, 4}, order); diff != "" {
		t.Errorf("turn order (-want +got):\n%s", diff)
	}
	if q.busy || len(q.waiting) != 0 {
		t.Errorf("queue not idle after all turns: busy=%v waiting=%d", q.busy, len(q.waiting))
	}
}

func TestTurnQueueCancelledWaiterLeaves(t *testing.T) {
	var q turnQueue
	if err := q.acquire(context.Background()); err != nil {
		t.Fatalf("first acquire: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- q.acquire(ctx) }()
	waitForWaiters(t, &q, 1)
	got := make(chan error, 1)
	go func() { got <- q.acquire(context.Background()) }()
	waitForWaiters(t, &q, 2)

	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire = %v, want context.Canceled", err)
	}
	q.release()
	if err := <-got; err != nil {
		t.Fatalf("acquire after the cancelled waiter: %v", err)
	}
	q.release()
	if q.busy || len(q.waiting) != 0 {
		t.Errorf("queue not idle: busy=%v waiting=%d", q.busy, len(q.waiting))
	}
}

// TestTurnQueueStress races hand-overs against cancellations: never two
// holders at once, and the queue ends idle.
func TestTurnQueueStress(t *testing.T) {
	var (
		q       turnQueue
		holders atomic.Int32
		wg      sync.WaitGroup
	)
	for i := range 200 {
		wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if i%3 == 0 {
				go cancel() // lands anywhere: before, during or after the hand-over
			}
			if err := q.acquire(ctx); err != nil {
				return
			}
			if n := holders.Add(1); n != 1 {
				t.Errorf("%d holders at once", n)
			}
			holders.Add(-1)
			q.release()
		})
	}
	wg.Wait()
	if q.busy || len(q.waiting) != 0 {
		t.Errorf("queue not idle: busy=%v waiting=%d", q.busy, len(q.waiting))
	}
}
