package wire

import (
	"container/list"
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Config tunes a Server. Zero values take the defaults.
type Config struct {
	// MaxMessageSize bounds the body of one client message; a larger one
	// ends the connection with FATAL 08P01. Default 64 MiB.
	MaxMessageSize int
	// MaxConnections bounds concurrent authenticated sessions; past it a
	// client gets FATAL 53300 "sorry, too many clients already". Default
	// 100. The last SuperuserReservedConnections of them are for
	// superusers only.
	MaxConnections int
	// SuperuserReservedConnections is PostgreSQL's
	// superuser_reserved_connections: default 3, at most MaxConnections-1.
	// Negative means none.
	SuperuserReservedConnections int
	// MaxStartups bounds the connections that have not yet authenticated.
	// When a new socket arrives past it, the oldest of them is closed, so
	// stalled handshakes can neither exhaust memory nor lock anybody out
	// for long. Default max(1024, 4*MaxConnections).
	MaxStartups int
	// Logger receives connection-level problems (panics, I/O errors).
	// Default slog.Default().
	Logger *slog.Logger
	// StartupTimeout bounds the time from accept to the end of
	// authentication, like PostgreSQL's authentication_timeout. Default 60s.
	StartupTimeout time.Duration
	// TLS, when set, answers an SSLRequest with 'S' and a TLS handshake
	// (see LoadTLS); nil answers 'N'. GSSENCRequest is always 'N'.
	TLS *tls.Config
	// RequireTLS refuses, with 28000, every client that did not negotiate
	// TLS, loopback ones included (tls.go).
	RequireTLS bool
	// HBA, when set, decides how each client authenticates, as
	// pg_hba.conf does (hba.go); nil keeps the built-in rule (startup.go's
	// authenticate).
	HBA *HBA
	// AuthThrottle delays the answers to repeated failed logins from one
	// address (auth_failures.go).
	AuthThrottle AuthThrottle
}

const (
	defaultMaxMessageSize = 64 << 20
	defaultMaxConnections = 100
	defaultStartupTimeout = 60 * time.Second
	defaultReserved       = 3
)

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("wire: server closed")

// Server accepts PostgreSQL clients and drives their sessions through a
// Handler.
type Server struct {
	h   Handler
	cfg Config
	log *slog.Logger

	// base is the parent of every connection's context; Shutdown cancels it,
	// which cancels every running statement.
	base       context.Context
	cancelBase context.CancelFunc

	nextPID atomic.Uint32

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	byPID     map[uint32]*conn // sessions that completed startup, for CancelRequest
	sessions  int              // connections holding a MaxConnections slot
	starting  *list.List       // of *conn not yet authenticated, oldest first
	wg        sync.WaitGroup   // connection goroutines

	// mockKey derives the salt of the mock SCRAM exchange for unknown
	// roles, so a role name gets the same salt every time, as a real one.
	mockKey [32]byte

	cbind    []byte        // tls-server-end-point data of the certificate, nil: no channel binding (scram_plus.go)
	failures *authFailures // failed logins per client address (auth_failures.go)
}

// NewServer returns a Server that calls h for authentication and sessions.
func NewServer(h Handler, cfg Config) *Server {
	if cfg.MaxMessageSize <= 0 {
		cfg.MaxMessageSize = defaultMaxMessageSize
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = defaultMaxConnections
	}
	if cfg.StartupTimeout <= 0 {
		cfg.StartupTimeout = defaultStartupTimeout
	}
	if cfg.SuperuserReservedConnections == 0 {
		cfg.SuperuserReservedConnections = defaultReserved
	}
	cfg.SuperuserReservedConnections = max(0, min(cfg.SuperuserReservedConnections, cfg.MaxConnections-1))
	if cfg.MaxStartups <= 0 {
		cfg.MaxStartups = max(1024, 4*cfg.MaxConnections)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Server{
		h: h, cfg: cfg, log: logger,
		base: base, cancelBase: cancel,
		listeners: map[net.Listener]struct{}{},
		conns:     map[*conn]struct{}{},
		byPID:     map[uint32]*conn{},
		starting:  list.New(),
		cbind:     serverEndPoint(cfg.TLS),
		failures:  newAuthFailures(cfg.AuthThrottle),
	}
	_, _ = rand.Read(s.mockKey[:])
	// PostgreSQL pids are small positive numbers; start somewhere that looks
	// like one.
	s.nextPID.Store(1000)
	return s
}

// Serve accepts connections on l until Shutdown (then it returns
// ErrServerClosed) or until l fails.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()

	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// Transient (e.g. EMFILE surfaces as temporary): back off.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		if !s.ServeConn(nc) {
			return ErrServerClosed
		}
	}
}

// ServeConn runs one client connection in its own goroutine (Serve calls it
// for every accepted socket; tests may hand it a net.Pipe end). It returns
// false, closing nc, when the server is shutting down.
func (s *Server) ServeConn(nc net.Conn) bool {
	c := newConn(s, nc)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = nc.Close()
		return false
	}
	s.conns[c] = struct{}{}
	c.startElem = s.starting.PushBack(c)
	var evict *conn
	if s.starting.Len() > s.cfg.MaxStartups {
		evict = s.starting.Remove(s.starting.Front()).(*conn)
		evict.startElem = nil
	}
	s.wg.Add(1)
	s.mu.Unlock()
	if evict != nil {
		// Its goroutine sees the closed socket and ends.
		_ = evict.nc.Close()
	}
	go func() {
		defer s.wg.Done()
		defer s.forget(c)
		c.serve()
	}()
	return true
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// authenticated takes c off the list of connections still starting up.
func (s *Server) authenticated(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.startElem != nil {
		s.starting.Remove(c.startElem)
		c.startElem = nil
	}
}

// acquireSlot registers an authenticated session under its pid and takes
// one of the MaxConnections slots; the last reserved ones only for a
// superuser. It returns the FATAL to send when there is none.
func (s *Server) acquireSlot(c *conn, superuser bool) *sqlerr.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions >= s.cfg.MaxConnections {
		return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.TooManyConnections, Message: "sorry, too many clients already"}
	}
	if !superuser && s.sessions >= s.cfg.MaxConnections-s.cfg.SuperuserReservedConnections {
		return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.TooManyConnections,
			Message: "remaining connection slots are reserved for non-replication superuser connections"}
	}
	s.sessions++
	c.holdsSlot = true
	s.byPID[c.pid] = c
	return nil
}

func (s *Server) forget(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	if c.startElem != nil {
		s.starting.Remove(c.startElem)
		c.startElem = nil
	}
	if c.holdsSlot {
		s.sessions--
		c.holdsSlot = false
		if s.byPID[c.pid] == c {
			delete(s.byPID, c.pid)
		}
	}
}

// cancel handles a CancelRequest: it cancels the running statement of the
// session with that pid if the secret key matches. Like PostgreSQL it
// answers nothing either way.
func (s *Server) cancel(pid uint32, key []byte) {
	s.mu.Lock()
	c := s.byPID[pid]
	s.mu.Unlock()
	if c != nil && c.keyMatches(key) {
		c.CancelStatement()
	}
}

// Shutdown stops accepting, cancels running statements, sends FATAL 57P01
// to every session and waits for their connections to end. When ctx ends
// first, the remaining sockets are closed forcibly and ctx's error returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for l := range s.listeners {
		_ = l.Close()
	}
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	s.cancelBase()
	// Wake connections blocked reading the next message; they notice the
	// shutdown and say goodbye themselves, so only their goroutine writes.
	for _, c := range conns {
		_ = c.nc.SetReadDeadline(time.Now())
	}

	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	for c := range s.conns {
		_ = c.nc.Close()
	}
	s.mu.Unlock()
	// A handler that ignores its context could hold a goroutine forever;
	// do not let it hold the caller too.
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	return ctx.Err()
}
