package agentdns

import "errors"

// Errors callers branch on.
var (
	// ErrUnknownPolicy reports a policy name the config does not have.
	ErrUnknownPolicy = errors.New("unknown policy")
	// ErrBadName reports a name that cannot be approved or denied.
	ErrBadName = errors.New("bad name")
	// ErrUpstream reports that no upstream resolver answered.
	ErrUpstream = errors.New("no upstream answered")
	// ErrSink reports that the AddressSink refused the answer's addresses,
	// so the answer was withheld.
	ErrSink = errors.New("address sink failed")
	// ErrAlreadyRunning reports a live admin socket: another resolver
	// serves this state directory.
	ErrAlreadyRunning = errors.New("agent dns already running")

	errEndOfChain = errors.New("query fell off the end of the chain")
)
