package wire

import (
	"container/list"
	"net"
	"sync"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// AuthObserver is implemented by a Handler that wants to hear of every
// failed login (the engine writes them to its audit log). AuthFailed is
// called once per refused connection, after authentication or the HBA
// rules refused it and before the error is sent, from the connection's
// goroutine: it must not block for long. client is "host:port", or
// "local" for a connection that is not TCP; sqlstate and message are
// those of the FATAL the client gets.
type AuthObserver interface {
	AuthFailed(user, database, client, sqlstate, message string)
}

// AuthThrottle slows down password guessing: once a client address has
// failed Limit logins within Window (a wrong password, certificate or
// channel binding; refusals by the rules do not count, as nothing can be
// guessed from them), each further failure from it is
// answered only after a delay, Delay doubling with every failure up to
// MaxDelay. Only that connection waits; other clients, and the same
// address's successful logins, are not held. At most MaxAddresses
// addresses are remembered (the least recently failing are forgotten).
// Zero values take the defaults; a negative Limit disables the throttle.
type AuthThrottle struct {
	Limit        int           // default 5
	Window       time.Duration // default 1 minute
	Delay        time.Duration // default 1 second
	MaxDelay     time.Duration // default 10 seconds
	MaxAddresses int           // default 10000
}

type authFailures struct {
	cfg AuthThrottle

	mu     sync.Mutex
	byAddr map[string]*list.Element // of *addrFailures
	lru    *list.List               // most recently failing first
}

type addrFailures struct {
	addr  string
	first time.Time // of the current window
	count int
}

func newAuthFailures(cfg AuthThrottle) *authFailures {
	if cfg.Limit == 0 {
		cfg.Limit = 5
	}
	if cfg.Window <= 0 {
		cfg.Window = time.Minute
	}
	if cfg.Delay <= 0 {
		cfg.Delay = time.Second
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = 10 * time.Second
	}
	cfg.MaxDelay = max(cfg.MaxDelay, cfg.Delay)
	if cfg.MaxAddresses <= 0 {
		cfg.MaxAddresses = 10000
	}
	return &authFailures{cfg: cfg, byAddr: map[string]*list.Element{}, lru: list.New()}
}

// failed counts a failed login from addr and returns how long to wait
// before answering it.
func (f *authFailures) failed(addr string, now time.Time) time.Duration {
	if f.cfg.Limit < 0 {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var a *addrFailures
	if el, ok := f.byAddr[addr]; ok {
		a = el.Value.(*addrFailures)
		f.lru.MoveToFront(el)
		if now.Sub(a.first) > f.cfg.Window {
			a.first, a.count = now, 0
		}
	} else {
		a = &addrFailures{addr: addr, first: now}
		f.byAddr[addr] = f.lru.PushFront(a)
		for f.lru.Len() > f.cfg.MaxAddresses {
			old := f.lru.Remove(f.lru.Back()).(*addrFailures)
			delete(f.byAddr, old.addr)
		}
	}
	a.count++
	over := a.count - f.cfg.Limit
	if over <= 0 {
		return 0
	}
	d := f.cfg.Delay
	for i := 1; i < over && d < f.cfg.MaxDelay; i++ {
		d *= 2
	}
	return min(d, f.cfg.MaxDelay)
}

// throttleKey is the address failures are counted under: the peer's IP
// (its port changes with every connection), or "local".
func throttleKey(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	return "local"
}

// authFailed is what happens to every refused login: it is logged, the
// Handler hears of it, and, unless a rule refused it (no HBA entry, a
// reject rule, RequireTLS), the throttle counts it; when the address has
// failed too often the connection waits before its error is sent (the
// wait ends early at shutdown).
func (c *conn) authFailed(user, database string, e *sqlerr.Error) {
	client := "local"
	if a, ok := c.nc.RemoteAddr().(*net.TCPAddr); ok {
		client = a.String()
	}
	c.srv.log.Info("wire: login failed", "user", user, "database", database, "client", client, "sqlstate", e.Code, "message", e.Message)
	if o, ok := c.srv.h.(AuthObserver); ok {
		o.AuthFailed(user, database, client, e.Code, e.Message)
	}
	if c.refusedByRule {
		// The same client is refused every time, whatever it sends
		// (sslmode=allow tries in the clear first): nothing to guess.
		return
	}
	d := c.srv.failures.failed(throttleKey(c.nc.RemoteAddr()), time.Now())
	if d <= 0 {
		return
	}
	c.srv.log.Info("wire: delaying the answer to a repeated failed login", "client", client, "user", user, "delay", d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.ctx.Done():
	}
}
