package events

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func checkSame(t *testing.T, e *Event) {
	t.Helper()
	want, err := json.Marshal(e)
	if err != nil {
		t.Skip("encoding/json refuses it too")
	}
	if got := e.AppendJSON(nil); string(got) != string(want) {
		t.Fatalf("AppendJSON:\n got %s\nwant %s", got, want)
	}
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	for _, e := range []*Event{
		{},
		{Time: t0, Event: Query, Policy: "p", Client: "127.0.0.1:1", Listener: "l", Name: "a.example", Type: "A", Decision: "allow",
			Rule: "mode:learn", Rcode: "NOERROR", Answers: []string{"192.0.2.1", "CNAME x"}, Cached: true, LatencyMs: 0.123, Detail: "d"},
		{Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)), Name: "quote\" back\\ <tag> & \x00\x1f\t\n\r\b\f \u2028\u2029 \xff\xfe é 日本"},
		{LatencyMs: 1e-7}, {LatencyMs: 123456789}, {LatencyMs: 1e21}, {LatencyMs: 0.000001}, {LatencyMs: -2.5},
	} {
		checkSame(t, e)
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("a.example", "192.0.2.1", 0.25, int64(0))
	f.Add("\xff<\x00>", "\u2028", 1e-9, int64(1767225600123456789))
	f.Fuzz(func(t *testing.T, name, answer string, lat float64, nanos int64) {
		if math.IsNaN(lat) || math.IsInf(lat, 0) {
			return
		}
		checkSame(t, &Event{Time: time.Unix(0, nanos).UTC(), Event: name, Name: name, Answers: []string{answer}, LatencyMs: lat, Detail: answer})
	})
}
