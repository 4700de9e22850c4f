package audit

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goodHead = "53bb3de305848b54da1e7985d7fa8afd8d219d4c88810e6773255553f7c629e9"

func TestVerifyGoldenChains(t *testing.T) {
	tests := []struct {
		file    string
		wantRep Report
		wantErr *ChainError // File is filled in by the test
	}{
		{file: "good.jsonl", wantRep: Report{Files: 1, Records: 6, FirstSeq: 1, LastSeq: 6, Head: goodHead}},
		{
			file:    "edited_field.jsonl",
			wantRep: Report{Records: 2, FirstSeq: 1, LastSeq: 2, Head: "3e1834244f231e66eee107a236be4f1d9b3180ffcf2c53cee07e5710a13d6488"},
			wantErr: &ChainError{Line: 3, Seq: 3, Problem: problemHashMismatch},
		},
		{
			file:    "edited_hash.jsonl",
			wantRep: Report{Records: 1, FirstSeq: 1, LastSeq: 1, Head: "24cc249dd357fe4983a97663fa939c25132baab5649e75df24f04f6d276b8984"},
			wantErr: &ChainError{Line: 2, Seq: 2, Problem: problemHashMismatch},
		},
		{
			file:    "no_hash.jsonl",
			wantRep: Report{Records: 4, FirstSeq: 1, LastSeq: 4, Head: "968934895805d604fd4667571565a8eee24fdf86fb0d60e817ade6b9dca4a1ec"},
			wantErr: &ChainError{Line: 5, Seq: 5, Problem: problemNoHash},
		},
		{
			file:    "reordered.jsonl",
			wantRep: Report{Records: 2, FirstSeq: 1, LastSeq: 2, Head: "3e1834244f231e66eee107a236be4f1d9b3180ffcf2c53cee07e5710a13d6488"},
			wantErr: &ChainError{Line: 3, Seq: 4, Problem: "out of sequence: want seq 3, got 4"},
		},
		{
			file:    "deleted_middle.jsonl",
			wantRep: Report{Records: 2, FirstSeq: 1, LastSeq: 2, Head: "3e1834244f231e66eee107a236be4f1d9b3180ffcf2c53cee07e5710a13d6488"},
			wantErr: &ChainError{Line: 3, Seq: 4, Problem: "out of sequence: want seq 3, got 4"},
		},
		{
			file:    "duplicated_line.jsonl",
			wantRep: Report{Records: 3, FirstSeq: 1, LastSeq: 3, Head: "74796a9215e3ad09072561f5c08080c0f5ffff69ae840d6fe7d8e24b23ac53c4"},
			wantErr: &ChainError{Line: 4, Seq: 3, Problem: "out of sequence: want seq 4, got 3"},
		},
		{
			file:    "torn_tail.jsonl",
			wantRep: Report{Records: 5, FirstSeq: 1, LastSeq: 5, Head: "709aabaabeb0229b70c793452fac40c64f42df0d13d62176c69e2f9843d0a3da"},
			wantErr: &ChainError{Line: 6, Seq: 0, Problem: problemTorn},
		},
		{
			file:    "bad_prev.jsonl",
			wantRep: Report{Records: 3, FirstSeq: 1, LastSeq: 3, Head: "74796a9215e3ad09072561f5c08080c0f5ffff69ae840d6fe7d8e24b23ac53c4"},
			wantErr: &ChainError{Line: 4, Seq: 4, Problem: problemBrokenLink},
		},
		{
			file:    "bad_genesis.jsonl",
			wantErr: &ChainError{Line: 1, Seq: 1, Problem: problemGenesis},
		},
		{
			file:    "not_json.jsonl",
			wantRep: Report{Records: 2, FirstSeq: 1, LastSeq: 2, Head: "3e1834244f231e66eee107a236be4f1d9b3180ffcf2c53cee07e5710a13d6488"},
			wantErr: &ChainError{Line: 3, Seq: 0, Problem: problemNotJSON},
		},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".jsonl"), func(t *testing.T) {
			dir := t.TempDir()
			live := filepath.Join(dir, liveName)
			copyFile(t, filepath.Join("testdata", "chain", tt.file), live)

			rep, err := Verify(dir)
			if diff := cmp.Diff(tt.wantRep, rep); diff != "" {
				t.Errorf("Verify report mismatch (-want +got):\n%s", diff)
			}
			var want *ChainError
			if tt.wantErr != nil {
				e := *tt.wantErr
				e.File = live
				want = &e
			}
			if diff := cmp.Diff(want, asChainError(t, err)); diff != "" {
				t.Errorf("Verify error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// asChainError returns the *ChainError in err, nil for a nil err, and fails
// the test for any other error.
func asChainError(t *testing.T, err error) *ChainError {
	t.Helper()
	if err == nil {
		return nil
	}
	ce, ok := errors.AsType[*ChainError](err)
	if !ok {
		t.Fatalf("error %v is not a *ChainError", err)
	}
	return ce
}

func TestVerifyRotatedGolden(t *testing.T) {
	all := []string{"audit-2025-01-02T03-05-00.000.jsonl", "audit-2025-01-02T03-05-01.000.jsonl", liveName}
	tests := []struct {
		name    string
		files   []string
		wantRep Report
		wantErr func(dir string) *ChainError
	}{
		{
			name:    "whole set",
			files:   all,
			wantRep: Report{Files: 3, Records: 9, FirstSeq: 1, LastSeq: 9, Head: rotatedHead(t)},
		},
		{
			// Rotation deleted the oldest backup: what remains verifies,
			// starting from the first record kept.
			name:    "oldest pruned",
			files:   all[1:],
			wantRep: Report{Files: 2, Records: 6, FirstSeq: 4, LastSeq: 9, Head: rotatedHead(t)},
		},
		{
			name:    "middle file missing",
			files:   []string{all[0], all[2]},
			wantRep: Report{Files: 1, Records: 3, FirstSeq: 1, LastSeq: 3, Head: lastHash(t, all[0])},
			wantErr: func(dir string) *ChainError {
				return &ChainError{File: filepath.Join(dir, liveName), Line: 1, Seq: 7, Problem: "out of sequence: want seq 4, got 7"}
			},
		},
		{
			name:    "live file missing",
			files:   all[:2],
			wantRep: Report{Files: 2, Records: 6, FirstSeq: 1, LastSeq: 6, Head: lastHash(t, all[1])},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range tt.files {
				copyFile(t, filepath.Join("testdata", "rotated", name), filepath.Join(dir, name))
			}
			rep, err := Verify(dir)
			if diff := cmp.Diff(tt.wantRep, rep); diff != "" {
				t.Errorf("Verify report mismatch (-want +got):\n%s", diff)
			}
			var want *ChainError
			if tt.wantErr != nil {
				want = tt.wantErr(dir)
			}
			if diff := cmp.Diff(want, asChainError(t, err)); diff != "" {
				t.Errorf("Verify error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func rotatedHead(t *testing.T) string { return lastHash(t, liveName) }

// lastHash returns the hash of the last record of a file of the rotated set.
func lastHash(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "rotated", name))
	if err != nil {
		t.Fatal(err)
	}
	lines := splitLines(data)
	return recordOf(t, lines[len(lines)-1]).Hash
}

func TestVerifyNoLog(t *testing.T) {
	dir := t.TempDir()
	_, err := Verify(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Verify(empty dir) = %v, want an error wrapping fs.ErrNotExist", err)
	}
	if _, ok := errors.AsType[*ChainError](err); ok {
		t.Errorf("Verify(empty dir) = %v, a ChainError; want a plain not-exist error", err)
	}
}

func TestVerifyEmptyLiveFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, liveName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(dir)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if diff := cmp.Diff(Report{Files: 1}, rep); diff != "" {
		t.Errorf("Verify report mismatch (-want +got):\n%s", diff)
	}
}

func TestVerifyLines(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "chain", "good.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := splitLines(good)
	third := recordOf(t, lines[2])
	tests := []struct {
		name    string
		in      []byte
		from    *Position
		want    Segment
		wantErr *ChainError
	}{
		{
			name: "empty unanchored",
			want: Segment{},
		},
		{
			name: "empty anchored keeps the anchor",
			from: &Position{Seq: 7, Hash: goodHead},
			want: Segment{End: Position{Seq: 7, Hash: goodHead}},
		},
		{
			name: "whole chain from genesis",
			in:   good,
			from: &Position{Hash: Genesis},
			want: Segment{Records: 6, FirstSeq: 1, End: Position{Seq: 6, Hash: goodHead}},
		},
		{
			name: "tail taken as given",
			in:   bytes.Join(lines[2:], nil),
			want: Segment{Records: 4, FirstSeq: 3, End: Position{Seq: 6, Hash: goodHead}},
		},
		{
			name: "tail anchored to its predecessor",
			in:   bytes.Join(lines[2:], nil),
			from: &Position{Seq: 2, Hash: third.Prev},
			want: Segment{Records: 4, FirstSeq: 3, End: Position{Seq: 6, Hash: goodHead}},
		},
		{
			name:    "tail anchored elsewhere",
			in:      bytes.Join(lines[2:], nil),
			from:    &Position{Seq: 2, Hash: Genesis},
			want:    Segment{End: Position{Seq: 2, Hash: Genesis}},
			wantErr: &ChainError{Line: 1, Seq: 3, Problem: problemBrokenLink},
		},
		{
			name:    "blank line",
			in:      []byte("\n"),
			wantErr: &ChainError{Line: 1, Problem: problemNotJSON},
		},
		{
			name:    "JSON that is not a record",
			in:      []byte("[1,2]\n"),
			wantErr: &ChainError{Line: 1, Problem: "invalid record: json: cannot unmarshal array into Go value of type audit.Record"},
		},
		{
			name:    "short hash",
			in:      []byte(`{"seq":1,"prev":"","hash":"abc"}` + "\n"),
			wantErr: &ChainError{Line: 1, Seq: 1, Problem: problemNoHash},
		},
		{
			name:    "upper-case hash",
			in:      bytes.ToUpper(lines[0]), // encoding/json matches member names case-insensitively
			wantErr: &ChainError{Line: 1, Seq: 1, Problem: problemNoHash},
		},
		{
			name:    "seq zero",
			in:      mustEncode(t, Record{Seq: 0, Prev: Genesis}),
			wantErr: &ChainError{Line: 1, Seq: 0, Problem: problemSeqZero},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := VerifyLines(bytes.NewReader(tt.in), tt.from)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("VerifyLines segment mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErr, asChainError(t, err)); diff != "" {
				t.Errorf("VerifyLines error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func mustEncode(t *testing.T, r Record) []byte {
	t.Helper()
	line, _, err := encodeLine(r)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func TestChainErrorMessage(t *testing.T) {
	tests := []struct {
		err  *ChainError
		want string
	}{
		{&ChainError{File: "/s/audit.jsonl", Line: 3, Seq: 3, Problem: problemHashMismatch}, "audit chain broken at /s/audit.jsonl line 3 (seq 3): " + problemHashMismatch},
		{&ChainError{Line: 1, Problem: problemNotJSON}, "audit chain broken at line 1 (seq 0): invalid JSON"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
