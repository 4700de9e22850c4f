package main

import (
	"math"
	"slices"
	"time"
)

// summary is one level's figures.
type summary struct {
	Concurrency int
	Requests    int
	P50         time.Duration
	P99         time.Duration
	Max         time.Duration
	Throughput  float64 // requests per second over the level's wall time
}

// summarize reduces a sample to its percentiles and throughput.
func summarize(concurrency int, s sample) summary {
	sorted := slices.Clone(s.latencies)
	slices.Sort(sorted)
	sum := summary{
		Concurrency: concurrency,
		Requests:    len(sorted),
		P50:         percentile(sorted, 50),
		P99:         percentile(sorted, 99),
	}
	if len(sorted) > 0 {
		sum.Max = sorted[len(sorted)-1]
	}
	if s.wall > 0 {
		sum.Throughput = float64(len(sorted)) / s.wall.Seconds()
	}
	return sum
}

// percentile returns the nearest-rank p-th percentile of sorted (ascending): the
// smallest value that at least p percent of the values are less than or equal to.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
