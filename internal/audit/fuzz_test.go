package audit

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzVerifyLines feeds arbitrary bytes to the verifier. It must never
// panic, must fail only with a *ChainError naming a line that exists, and
// must count every line when it succeeds. Seeds (the golden chains) live in
// testdata/fuzz/FuzzVerifyLines and are written by TestGoldenFiles.
func FuzzVerifyLines(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, anchored bool) {
		var from *Position
		if anchored {
			from = &Position{Hash: Genesis}
		}
		seg, err := VerifyLines(bytes.NewReader(data), from)
		lines := bytes.Count(data, []byte("\n"))
		if err != nil {
			ce, ok := errors.AsType[*ChainError](err)
			if !ok {
				t.Fatalf("error %v is not a *ChainError", err)
			}
			if ce.Line < 1 || ce.Line > lines+1 || ce.Line != seg.Records+1 {
				t.Fatalf("error names line %d of %d after %d good records", ce.Line, lines, seg.Records)
			}
			return
		}
		if seg.Records != lines {
			t.Fatalf("verified %d records in %d lines", seg.Records, lines)
		}
		if seg.Records > 0 && seg.End.Seq-seg.FirstSeq+1 != uint64(seg.Records) {
			t.Fatalf("segment %+v: seqs do not match the record count", seg)
		}
	})
}
