package server

import (
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

// frontDoor runs before any routing, in this order: refuse any Origin (no
// web page may drive the daemon), check Host (a page that rebinds a DNS
// name to 127.0.0.1 still sends its own name), then the bearer token.
func (s *Server) frontDoor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Header["Origin"]; ok {
			writeError(w, http.StatusForbidden, protocol.CodeOriginRefused,
				"requests from web pages are refused (Origin header present)", nil)
			return
		}
		if !s.hosts.allows(r.Host) {
			writeError(w, http.StatusForbidden, protocol.CodeHostRefused,
				"Host header "+strconv.Quote(r.Host)+" is not this daemon's address; start the daemon with --allow-host to accept it", nil)
			return
		}
		if !s.authorized(r) {
			if !s.authFails.Allow() {
				writeError(w, http.StatusTooManyRequests, protocol.CodeTooManyAuthFails,
					"too many failed authentications; slow down", map[string]string{"Retry-After": "1"})
				return
			}
			writeError(w, http.StatusUnauthorized, protocol.CodeUnauthorized,
				"missing or wrong bearer token", map[string]string{"WWW-Authenticate": `Bearer realm="sidecar"`})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Values("Authorization")
	if len(h) != 1 {
		return false
	}
	scheme, tok, ok := strings.Cut(h[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return s.cfg.Token.Matches(tok)
}

// hostSet is the set of Host header values the daemon answers to.
type hostSet map[string]bool

func newHostSet(port int, extra []string) hostSet {
	p := strconv.Itoa(port)
	hs := hostSet{}
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		hs[h+":"+p] = true
	}
	for _, h := range extra {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err == nil {
			hs[h] = true
			continue
		}
		if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
			h = "[" + h + "]" // a bare IPv6 address
		}
		hs[h] = true
		hs[h+":"+p] = true
	}
	return hs
}

func (hs hostSet) allows(host string) bool { return hs[strings.ToLower(host)] }
