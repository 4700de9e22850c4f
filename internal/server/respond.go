package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

// handlerFunc is an HTTP handler that returns its failure instead of
// writing it, so one adapter decides what a client may see.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// apiError is a failure with a status and a client-safe message. cause is
// logged, never sent.
type apiError struct {
	status int
	code   string
	msg    string
	cause  error
	header map[string]string
}

func (e *apiError) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.code, e.msg, e.cause)
	}
	return e.code + ": " + e.msg
}

func (e *apiError) Unwrap() error { return e.cause }

// adapt turns a handlerFunc into an http.Handler. A *protocol.RequestError
// becomes a 400 with its own words; an *apiError is sent as it says; any
// other error is logged and answered with a bare 500.
func (s *Server) adapt(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		if err == nil {
			return
		}
		var reqErr *protocol.RequestError
		var api *apiError
		switch {
		case errors.As(err, &reqErr):
			writeError(w, http.StatusBadRequest, reqErr.Code, reqErr.Message, nil)
		case errors.As(err, &api):
			if api.cause != nil || api.status >= 500 {
				s.cfg.Logger.Warn("request failed", "path", r.URL.Path, "code", api.code, "err", err)
			}
			writeError(w, api.status, api.code, api.msg, api.header)
		default:
			s.cfg.Logger.Error("request failed", "path", r.URL.Path, "err", err)
			writeError(w, http.StatusInternalServerError, protocol.CodeInternal, "internal error; see the daemon's log", nil)
		}
	})
}

func writeError(w http.ResponseWriter, status int, code, msg string, header map[string]string) {
	for k, v := range header {
		w.Header().Set(k, v)
	}
	writeJSON(w, status, protocol.ErrorBody{Error: protocol.ErrorDetail{Code: code, Message: msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	// The status line is out; a failed write means the client went away,
	// and there is nobody left to tell.
	_ = json.NewEncoder(w).Encode(v)
}
