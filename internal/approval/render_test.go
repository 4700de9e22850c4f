package approval

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestRender(t *testing.T) {
	at := time.Date(2025, 3, 14, 15, 9, 26, 0, time.FixedZone("CET", 3600))
	tests := []struct {
		name string
		req  Request
	}{
		{"simple", testRequest("r-1", "rm -rf build")},
		{"multi_line", testRequest("r-2", "for f in *.log; do\n\tgzip \"$f\"\ndone\n")},
		{"hostile", Request{
			ID:      "r-3\x1b[2J",
			Client:  "hermes\u202e@evil",
			Session: "s\u200b1",
			Cwd:     "/tmp/\x1b]0;owned\x07x",
			Command: "echo ok\x1b[1A\x1b[2K\r\nrm -rf ~ \u202egnp.exe\x00\xff\u00a0\u009b ↩↪",
			Why:     "not on the safe list: rm",
			Timeout: 30 * time.Second,
		}},
		{"long_and_wide", Request{
			ID:      "r-4",
			Client:  "hermes@build-box",
			Session: "default",
			Cwd:     "/home/ada/" + strings.Repeat("very-long-directory-name/", 6) + "end",
			// A space falls right at the first wrap; the marks show it.
			Command: "rm -rf /srv/www/html/current/releases/2025-03-14/" + strings.Repeat("x", 92-49) + " /etc" +
				"\necho 日本語のファイル名をコピーしました 日本語のファイル名をコピーしました 日本語のファイル名をコピーしました",
			Why:     "not on the safe list: rm",
			Timeout: 90 * time.Minute,
		}},
		{"empty_fields", Request{Command: "ls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(tt.req, at, 60*time.Second)
			checkBoxShape(t, got)

			golden := filepath.Join("testdata", "render_"+tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatalf("update golden file: %v", err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden file (run with -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("render %s (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

// checkBoxShape checks what the golden files cannot say by themselves:
// every row of the box is equally wide and at most maxBoxWidth columns, and
// the text ends with the prompt line.
func checkBoxShape(t *testing.T, text string) {
	t.Helper()
	if !strings.HasSuffix(text, "\n"+promptLine) {
		t.Errorf("prompt does not end with %q:\n%s", promptLine, text)
	}
	rows := strings.Split(strings.TrimPrefix(strings.TrimSuffix(text, "\n"+promptLine), "\n"), "\n")
	width := displayWidth(rows[0])
	if width > maxBoxWidth {
		t.Errorf("box is %d columns wide, want at most %d", width, maxBoxWidth)
	}
	for i, row := range rows {
		if w := displayWidth(row); w != width {
			t.Errorf("row %d is %d columns wide, want %d: %q", i, w, width, row)
		}
	}
}
