package claudelab

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"
)

// proxyReadTimeout bounds how long the proxy waits for a request line.
const proxyReadTimeout = 5 * time.Second

// Proxy is an HTTP proxy that lets nothing through: it answers every
// connection with 403 Forbidden and keeps the request line each one sent
// (CONNECT api.anthropic.com:443 HTTP/1.1, say), so that a test can assert
// that a client tried to reach nothing outside.
type Proxy struct {
	mu       sync.Mutex
	attempts []string
}

// Attempts returns the request line of every connection so far, in the
// order they came; a connection that sent no line within 5 s is "".
func (p *Proxy) Attempts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.attempts)
}

// Serve refuses the connections on ln until ctx is done, then closes ln
// and waits for the connections it is answering.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("proxy: %w", err)
		}
		p.mu.Lock()
		i := len(p.attempts)
		p.attempts = append(p.attempts, "")
		p.mu.Unlock()
		wg.Go(func() { p.refuse(c, i) })
	}
}

// refuse reads the request line of attempt i and answers 403.
func (p *Proxy) refuse(c net.Conn, i int) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(proxyReadTimeout)) // a conn without deadlines still ends when the peer does
	line, _ := bufio.NewReader(c).ReadString('\n')      // an attempt without a line counts all the same
	p.mu.Lock()
	p.attempts[i] = strings.TrimSpace(line)
	p.mu.Unlock()
	_, _ = c.Write([]byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
}
