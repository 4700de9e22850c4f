package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
)

// maxBody caps a request body (a baseline of many names fits easily).
const maxBody = 32 << 20

// ErrInUse reports a socket another live process is serving.
var ErrInUse = errors.New("admin socket in use")

// Listen creates the Unix socket at path with mode 0600. A socket file
// left by a process that died is replaced; one that answers is ErrInUse.
func Listen(path string) (net.Listener, error) {
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close() // only a probe
		return nil, fmt.Errorf("%w: %s", ErrInUse, path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale admin socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on admin socket: %w", err)
	}
	// The directory is 0700 already; the mode is a second lock.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod admin socket: %w", err)
	}
	return ln, nil
}

// handlerFunc is a route: it returns the value to send or an error.
type handlerFunc func(c Control, r *http.Request) (any, error)

// routes is every endpoint, in one table.
func routes() map[string]handlerFunc {
	return map[string]handlerFunc{
		"GET /v1/status":    func(c Control, _ *http.Request) (any, error) { return c.Status(), nil },
		"GET /v1/inventory": getInventory,
		"POST /v1/approve": func(c Control, r *http.Request) (any, error) {
			var req nameRequest
			if err := decode(r, &req); err != nil {
				return nil, err
			}
			return c.Approve(req.Policy, req.Name)
		},
		"POST /v1/deny": func(c Control, r *http.Request) (any, error) {
			var req nameRequest
			if err := decode(r, &req); err != nil {
				return nil, err
			}
			return c.Deny(req.Policy, req.Name)
		},
		"POST /v1/mode": func(c Control, r *http.Request) (any, error) {
			var req modeRequest
			if err := decode(r, &req); err != nil {
				return nil, err
			}
			return c.SetMode(req.Policy, req.Mode)
		},
		"POST /v1/default": func(c Control, r *http.Request) (any, error) {
			var req defaultRequest
			if err := decode(r, &req); err != nil {
				return nil, err
			}
			return c.SetDefault(req.Policy, req.Action)
		},
		"GET /v1/baseline": func(c Control, r *http.Request) (any, error) {
			return c.ExportBaseline(r.URL.Query().Get("policy"))
		},
		"POST /v1/baseline": func(c Control, r *http.Request) (any, error) {
			var req importRequest
			if err := decode(r, &req); err != nil {
				return nil, err
			}
			return c.ImportBaseline(req.Policy, req.Baseline)
		},
	}
}

func getInventory(c Control, r *http.Request) (any, error) {
	f := inventory.Filter{Policy: r.URL.Query().Get("policy")}
	if s := r.URL.Query().Get("status"); s != "" {
		st, err := inventory.ParseStatus(s)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		f.Status = st
	}
	return c.Inventory(f)
}

// Handler serves the routes for c. Causes of internal errors go to logw;
// the client gets a generic message for those.
func Handler(c Control, logw io.Writer) http.Handler {
	mux := http.NewServeMux()
	for pattern, h := range routes() {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
			v, err := h(c, r)
			if err != nil {
				writeError(w, err, logw)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(v) // a failed write means the client left
		})
	}
	return mux
}

func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: body: %w", ErrInvalid, err)
	}
	return nil
}

func writeError(w http.ResponseWriter, err error, logw io.Writer) {
	var body errorBody
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, ErrNotFound):
		status, body.Error.Code = http.StatusNotFound, "not_found"
	case errors.Is(err, ErrInvalid):
		status, body.Error.Code = http.StatusBadRequest, "invalid"
	}
	if status == http.StatusInternalServerError {
		fmt.Fprintf(logw, "agent dns admin: %v\n", err)
		body.Error.Code, body.Error.Message = "internal", "internal error; see the resolver's log"
	} else {
		// Our own messages about the request (names, policies): safe.
		body.Error.Message = strings.TrimPrefix(strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "), ErrNotFound.Error()+": ")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body) // a failed write means the client left
}
