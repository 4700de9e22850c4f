package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// op is one request of a level: one exec through the daemon, one bash, one ssh call.
// It must be safe to call from several goroutines at once.
type op func(ctx context.Context) error

// sample is what one level measured.
type sample struct {
	latencies []time.Duration // one per request, in the order requests were taken
	wall      time.Duration   // from the first request's start to the last one's end
}

// runLoad calls o n times from concurrency workers, each starting its next call as soon
// as its last one returned (a closed loop), and times every call. The first error stops
// the level and is returned.
func runLoad(ctx context.Context, concurrency, n int, o op) (sample, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		firstErr error
		once     sync.Once
		wg       sync.WaitGroup
	)
	latencies := make([]time.Duration, n)
	start := time.Now()
	for range min(concurrency, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				t := time.Now()
				if err := o(ctx); err != nil {
					once.Do(func() {
						firstErr = fmt.Errorf("request %d of %d at concurrency %d: %w", i+1, n, concurrency, err)
						cancel()
					})
					return
				}
				latencies[i] = time.Since(t)
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return sample{}, firstErr
	}
	return sample{latencies: latencies, wall: time.Since(start)}, nil
}
