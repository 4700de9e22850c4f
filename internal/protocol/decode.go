package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"
)

// RequestError is a client mistake: its code and message go back to the
// client as they are.
type RequestError struct {
	Code    string
	Message string
}

func (e *RequestError) Error() string { return e.Code + ": " + e.Message }

func reqErr(code, msg string) *RequestError { return &RequestError{Code: code, Message: msg} }

// decodeStrict decodes one JSON object into v. Before decoding it checks the
// bytes are UTF-8 (encoding/json would quietly turn bad bytes into U+FFFD,
// so the string classified would differ from the one sent) and walks the
// top-level keys: a protocol-1 key, an unknown key or a duplicated key is
// refused, because two parsers that disagree on which duplicate wins are a
// way to show the policy one command and run another.
func decodeStrict(body []byte, v any, allowed, v1 []string) error {
	if !utf8.Valid(body) {
		return reqErr(CodeInvalidUTF8, "request body is not valid UTF-8")
	}
	keys, err := topLevelKeys(body)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if slices.Contains(v1, k) {
			return reqErr(CodeProtocolV1, fmt.Sprintf("field %q belongs to protocol 1; this daemon speaks protocol %d and builds its own wrapper: send only the command", k, Version))
		}
		if !slices.Contains(allowed, k) {
			return reqErr(CodeUnknownField, fmt.Sprintf("unknown field %q", k))
		}
		if seen[k] {
			return reqErr(CodeDuplicateField, fmt.Sprintf("field %q appears more than once", k))
		}
		seen[k] = true
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return reqErr(CodeBadRequest, fmt.Sprintf("field %q must be a %s", typeErr.Field, typeErr.Type))
		}
		return reqErr(CodeInvalidJSON, "request body is not valid JSON")
	}
	return nil
}

// topLevelKeys returns the keys of the single JSON object in body, in order.
func topLevelKeys(body []byte) ([]string, error) {
	bad := reqErr(CodeInvalidJSON, "request body must be one JSON object")
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, bad
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad
		}
		key, ok := tok.(string)
		if !ok {
			return nil, bad
		}
		keys = append(keys, key)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, bad
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, bad
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, reqErr(CodeInvalidJSON, "request body has data after the JSON object")
	}
	return keys, nil
}
