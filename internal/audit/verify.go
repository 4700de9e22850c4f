package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Report describes a chain that verified.
type Report struct {
	Files    int    // files read
	Records  int    // records checked
	FirstSeq uint64 // seq of the oldest record kept; 0 when there are none
	LastSeq  uint64 // seq of the newest record; 0 when there are none
	Head     string // hash of the newest record; empty when there are none
}

// Verify checks the whole chain kept in dir: backups oldest to newest, then
// the live file (see the package doc for what that proves). On a bad record
// it returns a *ChainError naming the first one, with File set, and the
// Report of what verified before it. A dir without any audit file is an
// error that wraps fs.ErrNotExist.
//
// Verify only reads, takes no lock and may run beside a live Log; a record
// being written at that moment may then show as a torn last line.
func Verify(dir string) (Report, error) {
	paths, err := chainFiles(dir)
	if err != nil {
		return Report{}, fmt.Errorf("verify audit log: %w", err)
	}
	if len(paths) == 0 {
		return Report{}, fmt.Errorf("verify audit log: no audit log in %s: %w", dir, fs.ErrNotExist)
	}
	var rep Report
	var from *Position
	for _, path := range paths {
		seg, err := verifyFile(path, from)
		if errors.Is(err, fs.ErrNotExist) && rep.Files == 0 {
			continue // the oldest backup was pruned by rotation meanwhile
		}
		rep.add(seg)
		if seg.Records > 0 || from != nil {
			end := seg.End
			from = &end
		}
		if err != nil {
			return rep, err
		}
		rep.Files++
	}
	return rep, nil
}

// add counts seg into rep.
func (rep *Report) add(seg Segment) {
	if seg.Records == 0 {
		return
	}
	if rep.Records == 0 {
		rep.FirstSeq = seg.FirstSeq
	}
	rep.Records += seg.Records
	rep.LastSeq = seg.End.Seq
	rep.Head = seg.End.Hash
}

// verifyFile runs VerifyLines over one file and names the file in a
// ChainError.
func verifyFile(path string, from *Position) (Segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return Segment{}, fmt.Errorf("verify audit log: %w", err)
	}
	defer f.Close() // read-only: a close error loses nothing
	seg, err := VerifyLines(f, from)
	if chainErr, ok := errors.AsType[*ChainError](err); ok {
		chainErr.File = path
		return seg, chainErr
	}
	if err != nil {
		return seg, fmt.Errorf("verify audit log: %s: %w", path, err)
	}
	return seg, nil
}
