package approval

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestReadLine(t *testing.T) {
	errBroken := errors.New("terminal broke")
	tests := []struct {
		name    string
		input   io.Reader
		want    string
		wantErr error
	}{
		{"newline", strings.NewReader("yes\n"), "yes", nil},
		{"carriage return from a raw terminal", strings.NewReader("y\r"), "y", nil},
		{"empty line", strings.NewReader("\n"), "", nil},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("yes\n")), "yes", nil},
		{"rest after the line is dropped", strings.NewReader("n\ny\n"), "n", nil},
		{"exactly the limit", strings.NewReader(strings.Repeat("a", 8) + "\n"), strings.Repeat("a", 8), nil},
		{"over the limit keeps its first bytes", strings.NewReader("y" + strings.Repeat(" ", 8) + "\n"), "y" + strings.Repeat(" ", 7), errLineTooLong},
		{"over the limit across reads", iotest.OneByteReader(strings.NewReader("yes" + strings.Repeat(" ", 100) + "\n")), "yes     ", errLineTooLong},
		{"end of input before a newline", strings.NewReader("y"), "", io.EOF},
		{"nothing at all", strings.NewReader(""), "", io.EOF},
		{"read error", iotest.ErrReader(errBroken), "", errBroken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readLine(tt.input, 8)
			if got != tt.want {
				t.Errorf("readLine = %q, want %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantErr, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("readLine error (-want +got):\n%s", diff)
			}
		})
	}
}
