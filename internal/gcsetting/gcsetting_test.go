package gcsetting

import (
	"runtime/debug"
	"testing"
)

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		want      int
	}{
		{"unset", "", Percent},
		{"set by the person", "150", 100}, // read by the runtime at start; Apply leaves the collector alone
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.env)
			before := debug.SetGCPercent(100)
			t.Cleanup(func() { debug.SetGCPercent(before) })
			Apply()
			if got := debug.SetGCPercent(100); got != tc.want {
				t.Errorf("GC percent after Apply = %d, want %d", got, tc.want)
			}
		})
	}
}
