package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/client"
	"github.com/sidecarhq/sidecar/internal/daemon"
	"github.com/sidecarhq/sidecar/internal/statedir"
	"github.com/sidecarhq/sidecar/internal/token"
)

// remoteFlags are the flags of verbs that reach a daemon over HTTP.
type remoteFlags struct {
	url, token, stateDir string
}

func (r *remoteFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&r.url, "url", "", "daemon URL (default $SIDECAR_URL, else http://127.0.0.1:8765)")
	f.StringVar(&r.token, "token", "", "bearer token (default $SIDECAR_TOKEN, else the local state dir's token)")
	f.StringVar(&r.stateDir, "state-dir", "", "local state dir to read the token from")
}

// resolve finds the daemon URL and token: flags first, then the
// environment, then the local state dir.
func (r *remoteFlags) resolve(env Env) (url, tok string, err error) {
	url = firstNonEmpty(r.url, env.Getenv("SIDECAR_URL"), defaultURL())
	tok = firstNonEmpty(r.token, env.Getenv("SIDECAR_TOKEN"))
	if tok != "" {
		return url, tok, nil
	}
	dir, err := statedir.Resolve(r.stateDir, env.Getenv)
	if err != nil {
		return "", "", err
	}
	t, err := token.Load(dir)
	if err != nil {
		return "", "", fmt.Errorf("no token: pass --token, set SIDECAR_TOKEN, or run on the daemon's machine (%w)", err)
	}
	return url, t.String(), nil
}

// client builds a protocol client for the resolved daemon.
func (r *remoteFlags) client(env Env) (*client.Client, string, error) {
	url, tok, err := r.resolve(env)
	if err != nil {
		return nil, "", err
	}
	c, err := client.New(url, tok)
	return c, url, err
}

func defaultURL() string {
	return fmt.Sprintf("http://%s:%d", daemon.DefaultHost, daemon.DefaultPort)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
