package firewall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ErrNft reports that nft refused a ruleset or an element, with its words.
var ErrNft = errors.New("nft failed")

// DefaultNft returns the plain nft command. A caller can run nft inside a
// network namespace instead with []string{"ip", "netns", "exec", NAME, "nft"}.
func DefaultNft() []string { return []string{"nft"} }

// Apply loads ruleset with `nft -f -` (nft[0] is the program, the rest its
// leading arguments; nil means DefaultNft). The load is one transaction:
// all or nothing.
func Apply(ctx context.Context, ruleset string, nft []string) error {
	return runNft(ctx, nft, strings.NewReader(ruleset), "-f", "-")
}

func runNft(ctx context.Context, nft []string, stdin *strings.Reader, args ...string) error {
	if len(nft) == 0 {
		nft = DefaultNft()
	}
	cmd := exec.CommandContext(ctx, nft[0], append(append([]string{}, nft[1:]...), args...)...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("%w: %s", ErrNft, strings.TrimSpace(out.String()))
		}
		return fmt.Errorf("run %s: %w", nft[0], err)
	}
	return nil
}

// SetSink fills the approved-address sets of a loaded RawIP ruleset with
// the addresses Agent DNS answers for approved names, before each answer
// is sent (it implements agentdns.AddressSink). An address already added
// is not added again until half its timeout has passed.
//
// A SetSink is safe for concurrent use.
type SetSink struct {
	Table   string
	Nft     []string
	Timeout time.Duration
	Now     func() time.Time

	mu   sync.Mutex
	seen map[netip.Addr]time.Time
}

// Add adds addrs to the sets. policy is not used: one table serves every
// policy whose clients the fence covers.
func (s *SetSink) Add(ctx context.Context, _ string, addrs []netip.Addr) error {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = DefaultSetTimeout
	}
	table := s.Table
	if table == "" {
		table = DefaultTable
	}
	var v4, v6 []string
	s.mu.Lock()
	if s.seen == nil {
		s.seen = map[netip.Addr]time.Time{}
	}
	t := now()
	for _, a := range addrs {
		a = a.Unmap()
		if added, ok := s.seen[a]; ok && t.Sub(added) < timeout/2 {
			continue
		}
		s.seen[a] = t
		if a.Is4() {
			v4 = append(v4, a.String())
		} else {
			v6 = append(v6, a.String())
		}
	}
	s.mu.Unlock()
	var script strings.Builder
	secs := int(timeout.Seconds())
	for set, list := range map[string][]string{"approved_v4": v4, "approved_v6": v6} {
		if len(list) == 0 {
			continue
		}
		fmt.Fprintf(&script, "add element inet %s %s { %s timeout %ds }\n", table, set, strings.Join(list, fmt.Sprintf(" timeout %ds, ", secs)), secs)
	}
	if script.Len() == 0 {
		return nil
	}
	if err := runNft(ctx, s.Nft, strings.NewReader(script.String()), "-f", "-"); err != nil {
		s.mu.Lock()
		for _, a := range addrs {
			delete(s.seen, a.Unmap())
		}
		s.mu.Unlock()
		return fmt.Errorf("fill approved set: %w", err)
	}
	return nil
}
