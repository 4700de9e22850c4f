// Package token creates, loads and checks the bearer token that
// authenticates the remote side to the daemon.
package token

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sidecarhq/sidecar/internal/statedir"
)

// FileName is the token's file name inside the state dir.
const FileName = "token"

// Size is the token's length in random bytes.
const Size = 32

// ErrNoToken reports that the state dir holds no token yet.
var ErrNoToken = errors.New("no token yet: run `sidecar pair` or `sidecar serve` once")

// Token is a secret shared with the remote side. Its String form is hex.
type Token struct{ hex string }

// String returns the token as it is sent in the Authorization header.
func (t Token) String() string { return t.hex }

// Matches reports whether presented equals the token, in constant time.
func (t Token) Matches(presented string) bool {
	if t.hex == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(t.hex), []byte(presented)) == 1
}

// Path returns the token file's path in dir.
func Path(dir string) string { return filepath.Join(dir, FileName) }

// Load reads the token from dir, refusing a file that group or others can
// read: a leaked token is a remote shell on this machine.
func Load(dir string) (Token, error) {
	path := Path(dir)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return Token{}, ErrNoToken
	}
	if err := statedir.CheckPrivate(path, false); err != nil {
		return Token{}, fmt.Errorf("token file: %w", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return Token{}, fmt.Errorf("read token: %w", err)
	}
	s := strings.TrimSpace(string(raw))
	if b, err := hex.DecodeString(s); err != nil || len(b) != Size {
		return Token{}, fmt.Errorf("token file %s is malformed (want %d hex characters); rotate it with `sidecar serve --rotate-token`", path, 2*Size)
	}
	return Token{hex: s}, nil
}

// LoadOrCreate loads the token from dir, creating it when missing or when
// rotate is set. The state dir must already be private (statedir.Ensure).
// created reports whether a new token was written.
func LoadOrCreate(dir string, rotate bool) (tok Token, created bool, err error) {
	if !rotate {
		tok, err := Load(dir)
		if !errors.Is(err, ErrNoToken) {
			return tok, false, err
		}
	}
	tok, err = write(dir)
	return tok, err == nil, err
}

// write stores a fresh token atomically: a reader never sees a half-written
// file, and the file is 0600 from its first byte.
func write(dir string) (Token, error) {
	b := make([]byte, Size)
	if _, err := rand.Read(b); err != nil {
		return Token{}, fmt.Errorf("generate token: %w", err)
	}
	tok := Token{hex: hex.EncodeToString(b)}
	tmp, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return Token{}, fmt.Errorf("write token: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this is a no-op
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return Token{}, fmt.Errorf("write token: %w", err)
	}
	if _, err := tmp.WriteString(tok.hex + "\n"); err != nil {
		tmp.Close()
		return Token{}, fmt.Errorf("write token: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return Token{}, fmt.Errorf("write token: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return Token{}, fmt.Errorf("write token: %w", err)
	}
	if err := os.Rename(tmp.Name(), Path(dir)); err != nil {
		return Token{}, fmt.Errorf("write token: %w", err)
	}
	return tok, nil
}
