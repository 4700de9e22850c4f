package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Record is one entry of the audit log. A command normally has two: a
// "decision" written before it starts (or alone, for a denial) and a "result"
// written when it ends. Output is never recorded.
//
// The field order is part of the hashing scheme (see the package doc): Hash
// must stay the last field.
type Record struct {
	Seq         uint64    `json:"seq"`
	Time        time.Time `json:"time"`
	Event       string    `json:"event"` // EventDecision or EventResult
	RequestID   string    `json:"request_id"`
	Session     string    `json:"session"`
	Client      string    `json:"client"`  // remote address
	Command     string    `json:"command"` // redacted by Append
	Cwd         string    `json:"cwd"`
	Decision    string    `json:"decision"` // DecisionAllow or DecisionDeny
	Approval    string    `json:"approval"` // how it was decided: policy, user, grant, …
	Rule        string    `json:"rule,omitempty"`
	Reason      string    `json:"reason,omitempty"` // redacted by Append
	ExitCode    *int      `json:"exit_code,omitempty"`
	DurationMs  *int64    `json:"duration_ms,omitempty"`
	OutputBytes *int64    `json:"output_bytes,omitempty"`
	Truncated   *bool     `json:"truncated,omitempty"`
	Prev        string    `json:"prev"` // Hash of the record before; Genesis for the first
	Hash        string    `json:"hash"`
}

// Values of Record.Event and Record.Decision.
const (
	EventDecision = "decision"
	EventResult   = "result"
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
)

// Genesis is the Prev of the first record ever written.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

const (
	hashHexLen   = 2 * sha256.Size
	hashPrefix   = `,"hash":"`
	hashTail     = `"}`
	hashSuffixLn = len(hashPrefix) + hashHexLen + len(hashTail)
)

// emptyHash is how encoding/json ends a Record whose Hash is empty.
var emptyHash = []byte(`,"hash":""}`)

// encodeLine returns the line for r, newline included, and r's hash. r.Hash
// is ignored; every other field is written as it is.
func encodeLine(r Record) (line []byte, hash string, err error) {
	r.Hash = ""
	full, err := json.Marshal(r)
	if err != nil {
		return nil, "", fmt.Errorf("encode record %d: %w", r.Seq, err)
	}
	// Hash is the last field, so the encoding without it is the encoding
	// with an empty one minus that member.
	head, ok := bytes.CutSuffix(full, emptyHash)
	if !ok {
		return nil, "", fmt.Errorf("encode record %d: hash is not the last member", r.Seq)
	}
	hash = hashOf(head)
	line = make([]byte, 0, len(head)+hashSuffixLn+1)
	line = append(line, head...)
	line = append(line, hashPrefix...)
	line = append(line, hash...)
	line = append(line, hashTail...)
	line = append(line, '\n')
	return line, hash, nil
}

// hashOf returns the hash of a record given its encoding without the hash
// member and without the closing brace.
func hashOf(head []byte) string {
	h := sha256.New()
	h.Write(head)
	h.Write([]byte{'}'})
	return hex.EncodeToString(h.Sum(nil))
}

// splitHash cuts the hash member off a line (newline already dropped). It
// reports false when the line does not end in a well-formed hash member.
func splitHash(line []byte) (head []byte, hash string, ok bool) {
	if len(line) < hashSuffixLn {
		return nil, "", false
	}
	cut := len(line) - hashSuffixLn
	suffix := line[cut:]
	if !bytes.HasPrefix(suffix, []byte(hashPrefix)) || !bytes.HasSuffix(suffix, []byte(hashTail)) {
		return nil, "", false
	}
	digits := suffix[len(hashPrefix) : len(hashPrefix)+hashHexLen]
	if !isLowerHex(digits) {
		return nil, "", false
	}
	return line[:cut], string(digits), true
}

func isLowerHex(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
