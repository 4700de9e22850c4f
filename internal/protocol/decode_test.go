package protocol

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestDecodeExec(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		want     ExecRequest
		wantCode string
	}{
		{name: "minimal", body: `{"command":"pwd"}`, want: ExecRequest{Command: "pwd", Session: "default"}},
		{name: "all fields", body: `{"command":"ls","cwd":"/w","timeout":2.5,"stdin":"x","session":"s-1.a_b","request_id":"r:1"}`,
			want: ExecRequest{Command: "ls", Cwd: "/w", Timeout: ptr(2.5), Stdin: ptr("x"), Session: "s-1.a_b", RequestID: "r:1"}},
		{name: "unicode command kept exactly", body: `{"command":"echo h\u00e9llo \u202e"}`, want: ExecRequest{Command: "echo héllo \u202e", Session: "default"}},
		{name: "empty body", body: ``, wantCode: CodeInvalidJSON},
		{name: "truncated", body: `{"command":"pw`, wantCode: CodeInvalidJSON},
		{name: "array", body: `["pwd"]`, wantCode: CodeInvalidJSON},
		{name: "null", body: `null`, wantCode: CodeInvalidJSON},
		{name: "trailing data", body: `{"command":"pwd"} {}`, wantCode: CodeInvalidJSON},
		{name: "trailing garbage", body: `{"command":"pwd"}x`, wantCode: CodeInvalidJSON},
		{name: "unknown field", body: `{"command":"pwd","shell":"zsh"}`, wantCode: CodeUnknownField},
		{name: "duplicate field", body: `{"command":"pwd","command":"sudo id"}`, wantCode: CodeDuplicateField},
		{name: "v1 wrapper", body: `{"command":"pwd","wrapper":"bash -c"}`, wantCode: CodeProtocolV1},
		{name: "v1 cwd marker", body: `{"command":"pwd","cwd_marker":"__X__"}`, wantCode: CodeProtocolV1},
		{name: "v1 policy command", body: `{"command":"pwd","policy_command":"pwd"}`, wantCode: CodeProtocolV1},
		{name: "missing command", body: `{}`, wantCode: CodeInvalidCommand},
		{name: "empty command", body: `{"command":""}`, wantCode: CodeInvalidCommand},
		{name: "blank command", body: `{"command":" \n\t"}`, wantCode: CodeInvalidCommand},
		{name: "NUL in command", body: `{"command":"echo a\u0000b"}`, wantCode: CodeInvalidCommand},
		{name: "command wrong type", body: `{"command":42}`, wantCode: CodeBadRequest},
		{name: "invalid utf8", body: "{\"command\":\"echo \xff\"}", wantCode: CodeInvalidUTF8},
		{name: "relative cwd", body: `{"command":"pwd","cwd":"sub"}`, wantCode: CodeInvalidCwd},
		{name: "NUL in cwd", body: `{"command":"pwd","cwd":"/a\u0000"}`, wantCode: CodeInvalidCwd},
		{name: "negative timeout", body: `{"command":"pwd","timeout":-1}`, wantCode: CodeInvalidTimeout},
		{name: "zero timeout", body: `{"command":"pwd","timeout":0}`, wantCode: CodeInvalidTimeout},
		{name: "string timeout", body: `{"command":"pwd","timeout":"5"}`, wantCode: CodeBadRequest},
		{name: "bad session", body: `{"command":"pwd","session":"../x"}`, wantCode: CodeInvalidSession},
		{name: "dot session", body: `{"command":"pwd","session":".."}`, wantCode: CodeInvalidSession},
		{name: "long session", body: `{"command":"pwd","session":"` + strings.Repeat("a", 129) + `"}`, wantCode: CodeInvalidSession},
		{name: "bad request id", body: `{"command":"pwd","request_id":"a b"}`, wantCode: CodeInvalidRequestID},
		{name: "NUL in stdin", body: `{"command":"cat","stdin":"a\u0000"}`, wantCode: CodeBadRequest},
		{name: "huge command", body: `{"command":"` + strings.Repeat("a", MaxCommandBytes+1) + `"}`, wantCode: CodeInvalidCommand},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeExec([]byte(tc.body))
			if tc.wantCode != "" {
				var re *RequestError
				if !errors.As(err, &re) || re.Code != tc.wantCode {
					t.Fatalf("DecodeExec(%q) error = %v, want code %s", tc.body, err, tc.wantCode)
				}
				if re.Message == "" {
					t.Errorf("error %s has no message", re.Code)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeExec(%q): %v", tc.body, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DecodeExec(%q) (-want +got):\n%s", tc.body, diff)
			}
		})
	}
}

func TestEffectiveTimeout(t *testing.T) {
	def, max := 300*time.Second, 600*time.Second
	tests := []struct {
		name    string
		timeout *float64
		want    time.Duration
	}{
		{"default", nil, def},
		{"asked", ptr(2.5), 2500 * time.Millisecond},
		{"clamped", ptr(1e9), max},
		{"clamped beyond int64", ptr(1e300), max},
		{"tiny", ptr(1e-12), time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ExecRequest{Timeout: tc.timeout}
			if got := r.EffectiveTimeout(def, max); got != tc.want {
				t.Errorf("EffectiveTimeout = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestDecodeCancel(t *testing.T) {
	if got, err := DecodeCancel([]byte(`{"request_id":"abc"}`)); err != nil || got.RequestID != "abc" {
		t.Fatalf("DecodeCancel = %+v, %v", got, err)
	}
	for _, body := range []string{`{}`, `{"request_id":""}`, `{"request_id":"x","command":"y"}`, `{"request_id":"a/b"}`} {
		if _, err := DecodeCancel([]byte(body)); err == nil {
			t.Errorf("DecodeCancel(%s) accepted", body)
		}
	}
}

// FuzzDecodeExec: the decoder never panics, and whatever it accepts is a
// request the daemon can act on.
func FuzzDecodeExec(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := DecodeExec(body)
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) || re.Code == "" || re.Message == "" {
				t.Fatalf("error %v is not a RequestError with code and message", err)
			}
			return
		}
		switch {
		case req.Command == "" || strings.IndexByte(req.Command, 0) >= 0:
			t.Fatalf("accepted bad command %q", req.Command)
		case req.Session == "":
			t.Fatalf("accepted without a session")
		case req.Cwd != "" && req.Cwd[0] != '/':
			t.Fatalf("accepted relative cwd %q", req.Cwd)
		case req.Timeout != nil && !(*req.Timeout > 0):
			t.Fatalf("accepted timeout %v", *req.Timeout)
		}
	})
}
