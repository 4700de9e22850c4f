//go:build !linux

package host

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	sidecarruntime "github.com/sidecarhq/sidecar/internal/runtime"
)

// ErrUnsupported reports a platform the host runtime has not been built
// and tested for. It fails closed: no command runs.
var ErrUnsupported = errors.New("the host runtime supports only Linux so far")

// Runtime is the host runtime's stand-in on other platforms.
type Runtime struct{}

// New fails with ErrUnsupported.
func New(Options) (*Runtime, error) {
	return nil, fmt.Errorf("%w (this is %s)", ErrUnsupported, runtime.GOOS)
}

// Name reports the runtime kind, "host".
func (*Runtime) Name() string { return "host" }

// Run fails with ErrUnsupported.
func (*Runtime) Run(context.Context, sidecarruntime.Request) (sidecarruntime.Result, error) {
	return sidecarruntime.Result{}, ErrUnsupported
}

// Close does nothing.
func (*Runtime) Close() error { return nil }
