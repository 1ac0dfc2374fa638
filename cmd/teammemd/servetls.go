package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/teammemd/teammemd/internal/loopback"
	"github.com/teammemd/teammemd/server"
)

// Environment variables of serve's TLS flags.
const (
	envTLSCert = "TEAMMEMD_TLS_CERT"
	envTLSKey  = "TEAMMEMD_TLS_KEY"
)

// certificate is the TLS certificate serve presents: loaded from its files
// at start, and again on SIGHUP, so a renewed certificate is picked up
// without a restart.
type certificate struct {
	certFile, keyFile string
	cur               atomic.Pointer[tls.Certificate]
}

func loadCertificate(certFile, keyFile string) (*certificate, error) {
	c := &certificate{certFile: certFile, keyFile: keyFile}
	return c, c.reload()
}

// reload reads the files again; on an error the certificate in use stays.
func (c *certificate) reload() error {
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("load TLS certificate %s and key %s: %w", c.certFile, c.keyFile, err)
	}
	c.cur.Store(&cert)
	return nil
}

func (c *certificate) tlsConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.cur.Load(), nil
		},
	}
}

// listen opens sc's listener, with TLS when sc names a certificate, and
// reloads the certificate on SIGHUP until the returned stop is called.
// Serving plain HTTP beyond loopback is allowed, with a warning.
func listen(ctx context.Context, sc server.Config, log *slog.Logger) (net.Listener, func(), error) {
	var cert *certificate
	if sc.TLS() {
		var err error
		if cert, err = loadCertificate(sc.TLSCert, sc.TLSKey); err != nil {
			return nil, nil, err
		}
	} else if !loopbackListen(sc.Listen) {
		log.Warn("serving plain HTTP beyond loopback: tokens cross the network in the clear",
			"listen", sc.Listen, "hint", "serve with --tls-cert and --tls-key, or behind a TLS reverse proxy")
	}
	ln, err := net.Listen("tcp", sc.Listen)
	if err != nil {
		return nil, nil, fmt.Errorf("listen: %w", err)
	}
	if cert != nil {
		ln = tls.NewListener(ln, cert.tlsConfig())
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	hctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		reloadCertificateOnSignal(hctx, hup, cert, log)
	}()
	stop := func() {
		signal.Stop(hup)
		cancel()
		<-done
	}
	return ln, stop, nil
}

// reloadCertificateOnSignal loads the certificate files again on every
// signal from hup until ctx is done.
func reloadCertificateOnSignal(ctx context.Context, hup <-chan os.Signal, cert *certificate, log *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		if cert == nil {
			log.Info("SIGHUP: no TLS certificate to reload")
			continue
		}
		if err := cert.reload(); err != nil {
			log.Error("TLS certificate not reloaded; keeping the one in use", "err", err)
			continue
		}
		log.Info("TLS certificate reloaded", "cert", cert.certFile)
	}
}

// loopbackListen reports whether addr listens on loopback only.
func loopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return loopback.Is(host)
}
