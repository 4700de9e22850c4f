package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Position is where a chain stands after a record: that record's Seq and
// Hash. The position before the first record is {0, Genesis}.
type Position struct {
	Seq  uint64
	Hash string
}

// Segment describes a run of records that verified.
type Segment struct {
	Records  int
	FirstSeq uint64   // 0 when Records is 0
	End      Position // after the last record; the start position when Records is 0
}

// ChainError names the first record that does not verify.
type ChainError struct {
	File    string // path of the file; empty from VerifyLines
	Line    int    // 1-based line number in File
	Seq     uint64 // the seq the bad record carries; 0 when it could not be read
	Problem string // what is wrong, in words
}

func (e *ChainError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.File != "" {
		where = fmt.Sprintf("%s line %d", e.File, e.Line)
	}
	return fmt.Sprintf("audit chain broken at %s (seq %d): %s", where, e.Seq, e.Problem)
}

// Problems a ChainError reports. Sequence problems add the seqs involved.
const (
	problemTorn         = "torn line: the last line has no newline (a write was cut short)"
	problemNotJSON      = "invalid JSON"
	problemNoHash       = "no well-formed hash member at the end of the line"
	problemHashMismatch = "hash mismatch: the record was changed after it was written"
	problemBrokenLink   = "broken link: prev is not the hash of the record before"
	problemGenesis      = "broken link: the first record's prev is not the genesis hash"
	problemSeqZero      = "seq 0: sequence numbers start at 1"
)

// VerifyLines checks the records read from r, one per line, and returns what
// verified. With from nil, the first record's Seq and Prev are taken as given
// (it may follow records that rotation deleted), except that a record with
// Seq 1 must have Prev Genesis; with from set, the first record must follow
// it. Each later record must follow the one before.
//
// A record that fails yields a *ChainError (File empty) naming it, together
// with the Segment that verified before it. Any other error comes from r.
// VerifyLines is a pure function of its input and safe for concurrent use.
func VerifyLines(r io.Reader, from *Position) (Segment, error) {
	var seg Segment
	var pos Position
	anchored := from != nil
	if anchored {
		pos = *from
	}
	seg.End = pos
	br := bufio.NewReader(r)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) == 0 {
				return seg, nil
			}
			return seg, &ChainError{Line: lineNo, Problem: problemTorn}
		}
		if err != nil {
			return seg, fmt.Errorf("read line %d: %w", lineNo, err)
		}
		rec, hash, problem := checkLine(line[:len(line)-1])
		if problem == "" {
			problem = checkLink(rec, pos, anchored)
		}
		if problem != "" {
			return seg, &ChainError{Line: lineNo, Seq: rec.Seq, Problem: problem}
		}
		if seg.Records == 0 {
			seg.FirstSeq = rec.Seq
		}
		seg.Records++
		pos = Position{Seq: rec.Seq, Hash: hash}
		seg.End = pos
		anchored = true
	}
}

// checkLine checks one line on its own: that it is a record and that its
// hash matches its bytes. rec.Seq is set whenever the line decoded.
func checkLine(line []byte) (rec Record, hash, problem string) {
	if err := json.Unmarshal(line, &rec); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return Record{}, "", problemNotJSON
		}
		return Record{}, "", "invalid record: " + err.Error()
	}
	head, hash, ok := splitHash(line)
	if !ok {
		return rec, "", problemNoHash
	}
	if hashOf(head) != hash {
		return rec, "", problemHashMismatch
	}
	return rec, hash, ""
}

// checkLink checks that rec follows pos. When the chain is not anchored yet,
// rec starts it.
func checkLink(rec Record, pos Position, anchored bool) string {
	switch {
	case !anchored && rec.Seq == 0:
		return problemSeqZero
	case !anchored && rec.Seq == 1 && rec.Prev != Genesis:
		return problemGenesis
	case !anchored:
		return ""
	case rec.Seq != pos.Seq+1:
		return fmt.Sprintf("out of sequence: want seq %d, got %d", pos.Seq+1, rec.Seq)
	case rec.Prev != pos.Hash:
		return problemBrokenLink
	}
	return ""
}
