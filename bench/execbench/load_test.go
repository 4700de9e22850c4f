package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestRunLoadCallsExactlyN(t *testing.T) {
	tests := []struct {
		name        string
		concurrency int
		n           int
	}{
		{"serial", 1, 50},
		{"concurrent", 8, 101},
		{"more workers than requests", 64, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			s, err := runLoad(context.Background(), tt.concurrency, tt.n, func(context.Context) error {
				calls.Add(1)
				return nil
			})
			if err != nil {
				t.Fatalf("runLoad: %v", err)
			}
			if got := int(calls.Load()); got != tt.n {
				t.Errorf("op called %d times, want %d", got, tt.n)
			}
			if len(s.latencies) != tt.n {
				t.Errorf("%d latencies, want %d", len(s.latencies), tt.n)
			}
		})
	}
}

func TestRunLoadStopsOnFirstError(t *testing.T) {
	errBoom := errors.New("boom")
	var calls atomic.Int64
	_, err := runLoad(context.Background(), 4, 1000, func(ctx context.Context) error {
		switch c := calls.Add(1); {
		case c == 10:
			return errBoom
		case c > 10:
			// A call begun after the failing one is a request in flight:
			// it ends when the load is cancelled, however the goroutines
			// are scheduled.
			<-ctx.Done()
		}
		return nil
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("runLoad error = %v, want one wrapping %v", err, errBoom)
	}
	// Workers already inside op finish their call; none starts another after the error.
	if got := calls.Load(); got > 10+4 {
		t.Errorf("op called %d times after an error at call 10 with 4 workers", got)
	}
}
