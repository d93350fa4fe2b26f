package wire

import (
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// clientCheckInterval is how often the socket of a running statement is
// looked at, like PostgreSQL's client_connection_check_interval.
const clientCheckInterval = 100 * time.Millisecond

// watchClient looks at the socket every clientCheckInterval while a
// statement runs; when the client has closed or reset it, the connection's
// context is cancelled (cause errClientGone), which stops the statement.
// Nothing is read: poll(POLLRDHUP) sees the peer's FIN even behind data it
// sent ahead. Statements shorter than one interval cost one timer.
func (c *conn) watchClient() (stop func()) {
	sc, ok := c.nc.(syscall.Conn)
	if !ok {
		return func() {}
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return func() {}
	}
	var (
		mu      sync.Mutex
		stopped bool
		t       *time.Timer
	)
	check := func() {
		if clientClosed(rc) {
			c.cancel(errClientGone)
			return
		}
		mu.Lock()
		if !stopped {
			t.Reset(clientCheckInterval)
		}
		mu.Unlock()
	}
	mu.Lock()
	t = time.AfterFunc(clientCheckInterval, check)
	mu.Unlock()
	return func() {
		mu.Lock()
		stopped = true
		t.Stop()
		mu.Unlock()
	}
}

// clientClosed reports whether the peer has hung up or the socket failed.
func clientClosed(rc syscall.RawConn) bool {
	closed := false
	_ = rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		n, err := unix.Poll(fds, 0)
		if err != nil || n == 0 {
			return
		}
		closed = fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
	})
	return closed
}
