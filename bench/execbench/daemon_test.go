package main

import (
	"bytes"
	"testing"
)

func TestFindURL(t *testing.T) {
	tests := []struct {
		line   string
		want   string
		wantOK bool
	}{
		{"sidecar: listening on http://127.0.0.1:41234 (protocol 2)", "http://127.0.0.1:41234", true},
		{"http://127.0.0.1:8765", "http://127.0.0.1:8765", true},
		{"listening on http://localhost:8765", "", false},
		{"http://127.0.0.1: no port", "", false},
	}
	for _, tt := range tests {
		got, ok := findURL(tt.line)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("findURL(%q) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestURLWatcherAcrossWrites(t *testing.T) {
	var log bytes.Buffer
	w := newURLWatcher(&log)
	// The address arrives split across writes, after an unrelated line.
	for _, chunk := range []string{"starting\nlisten", "ing on http://127.0", ".0.1:5555\nmore\n"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	select {
	case got := <-w.found:
		if got != "http://127.0.0.1:5555" {
			t.Errorf("found %q, want http://127.0.0.1:5555", got)
		}
	default:
		t.Fatal("no address found")
	}
	if want := "starting\nlistening on http://127.0.0.1:5555\nmore\n"; log.String() != want {
		t.Errorf("log = %q, want %q", log.String(), want)
	}
}
