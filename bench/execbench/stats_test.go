package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(i + 1)
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value", []time.Duration{ms(7)}, 99, ms(7)},
		{"p50 of 1..100 is 50", hundred, 50, ms(50)},
		{"p99 of 1..100 is 99", hundred, 99, ms(99)},
		{"p100 is the max", hundred, 100, ms(100)},
		{"p0 is the min", hundred, 0, ms(1)},
		{"p50 of two is the lower", []time.Duration{ms(1), ms(3)}, 50, ms(1)},
		{"p99 of ten is the max", []time.Duration{ms(1), ms(2), ms(3), ms(4), ms(5), ms(6), ms(7), ms(8), ms(9), ms(10)}, 99, ms(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile(%d values, %v) = %v, want %v", len(tt.sorted), tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	s := sample{latencies: []time.Duration{ms(4), ms(1), ms(3), ms(2)}, wall: 2 * time.Second}
	want := summary{Concurrency: 2, Requests: 4, P50: ms(2), P99: ms(4), Max: ms(4), Throughput: 2}
	if diff := cmp.Diff(want, summarize(2, s)); diff != "" {
		t.Errorf("summarize (-want +got):\n%s", diff)
	}
	if s.latencies[0] != ms(4) {
		t.Errorf("summarize sorted the caller's slice")
	}
}

func TestFmtDur(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0 µs"},
		{850 * time.Microsecond, "850 µs"},
		{1234 * time.Microsecond, "1.23 ms"},
		{ms(42), "42.0 ms"},
		{-1500 * time.Microsecond, "-1.50 ms"},
	}
	for _, tt := range tests {
		if got := fmtDur(tt.d); got != tt.want {
			t.Errorf("fmtDur(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
