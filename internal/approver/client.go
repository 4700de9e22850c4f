package approver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// ErrProtocol reports a daemon that does not speak this protocol.
var ErrProtocol = errors.New("approver protocol error")

// Conn is an approver's connection to a daemon. Next and Send may be used
// from different goroutines; Next must not be called concurrently with
// itself.
type Conn struct {
	c     net.Conn
	sc    *bufio.Scanner
	wmu   sync.Mutex
	Hello Message // the daemon's hello
}

// Dial connects to the approver socket at path and reads the daemon's
// hello. ctx bounds the dial only.
func Dial(ctx context.Context, path string) (*Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("connect to the daemon's approver socket %s: %w", path, err)
	}
	conn := &Conn{c: c, sc: bufio.NewScanner(c)}
	conn.sc.Buffer(make([]byte, 4096), maxLine)
	hello, err := conn.Next()
	if err != nil {
		c.Close()
		return nil, err
	}
	switch {
	case hello.Type == TypeError:
		c.Close()
		return nil, fmt.Errorf("%w: the daemon says: %s", ErrProtocol, hello.Message)
	case hello.Type != TypeHello || hello.Version != Version:
		c.Close()
		return nil, fmt.Errorf("%w: expected hello version %d, got %q version %d", ErrProtocol, Version, hello.Type, hello.Version)
	}
	conn.Hello = hello
	return conn, nil
}

// Next returns the daemon's next message. It returns io.EOF (wrapped) when
// the daemon goes away.
func (c *Conn) Next() (Message, error) {
	if !c.sc.Scan() {
		err := c.sc.Err()
		if err == nil {
			err = io.EOF
		}
		return Message{}, fmt.Errorf("read from daemon: %w", err)
	}
	var m Message
	if err := json.Unmarshal(c.sc.Bytes(), &m); err != nil {
		return Message{}, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	return m, nil
}

// Send writes one message to the daemon.
func (c *Conn) Send(m Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.c.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write to daemon: %w", err)
	}
	return nil
}

// Close closes the connection; a blocked Next returns.
func (c *Conn) Close() error { return c.c.Close() }
