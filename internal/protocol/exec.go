package protocol

import (
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// ExecRequest is the body of POST /v1/exec.
type ExecRequest struct {
	Command   string   `json:"command"`
	Cwd       string   `json:"cwd,omitempty"`
	Timeout   *float64 `json:"timeout,omitempty"`
	Stdin     *string  `json:"stdin,omitempty"`
	Session   string   `json:"session,omitempty"`
	RequestID string   `json:"request_id,omitempty"`
}

// DefaultSession keys the state of clients that name no session.
const DefaultSession = "default"

// MaxCommandBytes bounds the command string; longer commands are refused
// before they reach the classifier.
const MaxCommandBytes = 256 << 10

var (
	sessionPattern   = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)
	requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
)

// execFields are the fields an ExecRequest may carry.
var execFields = []string{"command", "cwd", "timeout", "stdin", "session", "request_id"}

// v1Fields are protocol-1 fields that a version-2 daemon refuses outright:
// with them the client, not the daemon, built the script that ran.
var v1Fields = []string{"wrapper", "cwd_marker", "policy_command"}

// DecodeExec decodes and validates an exec body strictly. The returned
// error is a *RequestError whose Code and Message are safe to send back.
func DecodeExec(body []byte) (ExecRequest, error) {
	var req ExecRequest
	if err := decodeStrict(body, &req, execFields, v1Fields); err != nil {
		return ExecRequest{}, err
	}
	if err := req.validate(); err != nil {
		return ExecRequest{}, err
	}
	if req.Session == "" {
		req.Session = DefaultSession
	}
	return req, nil
}

func (r *ExecRequest) validate() error {
	switch {
	case r.Command == "":
		return reqErr(CodeInvalidCommand, "command is empty")
	case strings.TrimSpace(r.Command) == "":
		return reqErr(CodeInvalidCommand, "command is only white space")
	case strings.IndexByte(r.Command, 0) >= 0:
		return reqErr(CodeInvalidCommand, "command contains a NUL byte")
	case len(r.Command) > MaxCommandBytes:
		return reqErr(CodeInvalidCommand, "command is longer than 256 KiB")
	}
	if r.Cwd != "" {
		if strings.IndexByte(r.Cwd, 0) >= 0 {
			return reqErr(CodeInvalidCwd, "cwd contains a NUL byte")
		}
		if !filepath.IsAbs(r.Cwd) {
			return reqErr(CodeInvalidCwd, "cwd must be an absolute path")
		}
	}
	if r.Timeout != nil {
		t := *r.Timeout
		if math.IsNaN(t) || math.IsInf(t, 0) || t <= 0 {
			return reqErr(CodeInvalidTimeout, "timeout must be a positive number of seconds")
		}
	}
	if r.Stdin != nil && strings.IndexByte(*r.Stdin, 0) >= 0 {
		// JSON strings can carry U+0000; a shell's stdin could take it, but
		// nothing Hermes sends needs it and it is a classic smuggling byte.
		return reqErr(CodeBadRequest, "stdin contains a NUL byte")
	}
	if r.Session != "" && (!sessionPattern.MatchString(r.Session) || r.Session == "." || r.Session == "..") {
		return reqErr(CodeInvalidSession, "session must match [A-Za-z0-9._-]{1,128} and not be . or ..")
	}
	if r.RequestID != "" && !requestIDPattern.MatchString(r.RequestID) {
		return reqErr(CodeInvalidRequestID, "request_id must match [A-Za-z0-9._:-]{1,128}")
	}
	return nil
}

// EffectiveTimeout is the request's timeout, or def when it names none,
// clamped to max: the remote side can never ask for more than the local
// user allowed.
func (r *ExecRequest) EffectiveTimeout(def, max time.Duration) time.Duration {
	d := def
	if r.Timeout != nil {
		secs := *r.Timeout
		if secs >= max.Seconds() {
			return max
		}
		d = time.Duration(secs * float64(time.Second))
		if d < time.Millisecond {
			d = time.Millisecond
		}
	}
	if d > max {
		d = max
	}
	return d
}

// DecodeCancel decodes a cancel body strictly.
func DecodeCancel(body []byte) (CancelRequest, error) {
	var req CancelRequest
	if err := decodeStrict(body, &req, []string{"request_id"}, nil); err != nil {
		return CancelRequest{}, err
	}
	if !requestIDPattern.MatchString(req.RequestID) {
		return CancelRequest{}, reqErr(CodeInvalidRequestID, "request_id must match [A-Za-z0-9._:-]{1,128}")
	}
	return req, nil
}
