package session

import (
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"default", true},
		{"a", true},
		{"A-z_0.9", true},
		{".hidden", true},
		{"...", true},
		{strings.Repeat("x", 128), true},
		{"", false},
		{".", false},
		{"..", false},
		{strings.Repeat("x", 129), false},
		{"a/b", false},
		{"../x", false},
		{"a b", false},
		{"a\x00b", false},
		{"é", false},
		{"a:b", false},
	}
	for _, tt := range tests {
		if got := ValidName(tt.name); got != tt.want {
			t.Errorf("ValidName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
