//go:build linux

package host

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// BenchmarkRunTrue measures one Run of `true` on each path, beside the
// floor of starting bash at all, measured in the same run. "back-to-back"
// starts each run as soon as the last returned, so a warm shell's start-up
// competes with the runs for the CPUs; "paced" leaves 5 ms between runs
// (an agent leaves seconds), time enough to start the next warm shell.
// Besides ns/op it reports the median (p50-µs) and, on the warm path, the
// share of runs that found a warm shell (warm-hits).
func BenchmarkRunTrue(b *testing.B) {
	b.Run("bash-floor", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			if err := exec.Command(DefaultShell, "--noprofile", "--norc", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		reportMedian(b, lat)
	})
	for _, pace := range []struct {
		name string
		gap  time.Duration
	}{{"back-to-back", 0}, {"paced", 5 * time.Millisecond}} {
		for _, p := range paths {
			b.Run(pace.name+"/"+p.name, func(b *testing.B) { benchmarkRunTrue(b, p.warmShells, pace.gap) })
		}
	}
}

func benchmarkRunTrue(b *testing.B, warmShells int, gap time.Duration) {
	r, err := New(Options{WarmShells: warmShells})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close() }) // always nil
	req := runtime.Request{Command: "true", Cwd: b.TempDir(), Env: testEnv, Timeout: 10 * time.Second, MaxOutput: 1 << 20}
	runTrue := func() {
		res, err := r.Run(context.Background(), req)
		if err != nil || res.ExitCode != 0 || res.Cwd != req.Cwd {
			b.Fatalf("Run = %+v, %v", res, err)
		}
	}
	if r.pool != nil {
		runTrue() // the pool learns the environment from requests
		settle(b, r.pool)
	}
	var before poolStats
	if r.pool != nil {
		before = statsOf(r.pool)
	}
	var lat []time.Duration
	for b.Loop() {
		if gap > 0 {
			b.StopTimer()
			time.Sleep(gap)
			b.StartTimer()
		}
		start := time.Now()
		runTrue()
		lat = append(lat, time.Since(start))
	}
	reportMedian(b, lat)
	if r.pool != nil {
		after := statsOf(r.pool)
		b.ReportMetric(float64(after.hits-before.hits)/float64(len(lat)), "warm-hits")
	}
}

// reportMedian reports the median of lat in microseconds.
func reportMedian(b *testing.B, lat []time.Duration) {
	b.Helper()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
}
