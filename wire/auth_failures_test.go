package wire_test

import (
	"context"
	"crypto/elliptic"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/wire"
)

type authFailure struct{ user, database, client, sqlstate, message string }

// authLog keeps what the test handler heard through wire.AuthObserver.
type authLog struct {
	mu     sync.Mutex
	events []authFailure
}

var _ wire.AuthObserver = (*testHandler)(nil)

func (h *testHandler) AuthFailed(user, database, client, sqlstate, message string) {
	h.auth.mu.Lock()
	h.auth.events = append(h.auth.events, authFailure{user, database, client, sqlstate, message})
	h.auth.mu.Unlock()
}

// waitAuthFailures waits until n failures were reported and returns them.
func (h *testHandler) waitAuthFailures(t *testing.T, n int) []authFailure {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.auth.mu.Lock()
		ev := append([]authFailure(nil), h.auth.events...)
		h.auth.mu.Unlock()
		if len(ev) >= n || time.Now().After(deadline) {
			if len(ev) < n {
				t.Fatalf("%d failed logins reported, want %d: %+v", len(ev), n, ev)
			}
			return ev
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// connectFrom logs in as carol with password from the loopback address
// local (127.0.0.1, 127.0.0.2: two clients as far as the server can tell)
// and returns the error and how long the answer took.
func connectFrom(ctx context.Context, t *testing.T, addr, local, password string) (time.Duration, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://carol:%s@%s/db?sslmode=disable", password, addr))
	if err != nil {
		t.Fatal(err)
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	cfg.DialFunc = d.DialContext
	start := time.Now()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	took := time.Since(start)
	if err == nil {
		conn.Close(ctx)
	}
	return took, err
}

// TestAuthThrottle: five wrong passwords from one address are answered at
// once; the sixth only after the delay, and meanwhile another address
// logs in (and fails) without waiting. Every failure reached the
// observer.
func TestAuthThrottle(t *testing.T) {
	const delay = 3 * time.Second
	ts, _ := startPasswordTLSServer(t, elliptic.P256(), wire.Config{AuthThrottle: wire.AuthThrottle{Delay: delay}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 1; i <= 5; i++ {
		took, err := connectFrom(ctx, t, ts.addr, "127.0.0.1", "wrong")
		if pgErrCode(err) != "28P01" {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if took >= delay {
			t.Errorf("attempt %d took %v: delayed before the limit", i, took)
		}
	}
	type result struct {
		took time.Duration
		err  error
	}
	sixth := make(chan result, 1)
	go func() {
		took, err := connectFrom(ctx, t, ts.addr, "127.0.0.1", "wrong")
		sixth <- result{took, err}
	}()
	// Wait until the sixth failure is in (it is reported before the
	// delay), then log in from elsewhere while it is held.
	ts.h.waitAuthFailures(t, 6)
	took, err := connectFrom(ctx, t, ts.addr, "127.0.0.2", "pw")
	if err != nil {
		t.Fatalf("right password from another address: %v", err)
	}
	took2, err := connectFrom(ctx, t, ts.addr, "127.0.0.2", "wrong")
	if pgErrCode(err) != "28P01" {
		t.Fatalf("wrong password from another address: %v", err)
	}
	select {
	case r := <-sixth:
		t.Fatalf("the sixth attempt was answered (after %v, %v) before the other address's two logins ended", r.took, r.err)
	default:
	}
	if took >= delay || took2 >= delay {
		t.Errorf("another address waited: %v, %v", took, took2)
	}
	r := <-sixth
	if pgErrCode(r.err) != "28P01" || r.took < delay {
		t.Errorf("sixth attempt: %v after %v, want 28P01 after at least %v", r.err, r.took, delay)
	}
	ev := ts.h.waitAuthFailures(t, 7)
	from1 := 0
	for _, e := range ev {
		if e.user != "carol" || e.database != "db" || e.sqlstate != "28P01" || e.message != `password authentication failed for user "carol"` {
			t.Errorf("reported %+v", e)
		}
		if host, _, _ := net.SplitHostPort(e.client); host == "127.0.0.1" {
			from1++
		}
	}
	if from1 != 6 || len(ev) != 7 {
		t.Errorf("%d failures from 127.0.0.1 of %d: %+v", from1, len(ev), ev)
	}
}

// TestAuthThrottleSkipsRuleRefusals: a client the rules refuse is refused
// every time whatever it sends (sslmode=allow tries in the clear first),
// so those refusals are reported but not throttled.
func TestAuthThrottleSkipsRuleRefusals(t *testing.T) {
	const delay = 3 * time.Second
	ts, _ := startHBAServerThrottled(t, "127.0.0.1:0", "host all rej 127.0.0.1/32 reject\nhost all carol 127.0.0.1/32 scram-sha-256\n",
		wire.AuthThrottle{Delay: delay})
	ctx := testCtx(t)
	for i := 1; i <= 7; i++ {
		start := time.Now()
		_, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s@%s/db?sslmode=disable", []string{"rej", "nobody"}[i%2], ts.addr))
		if pgErrCode(err) != "28000" {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if took := time.Since(start); took >= delay {
			t.Errorf("attempt %d delayed %v", i, took)
		}
	}
	if n := len(ts.h.waitAuthFailures(t, 7)); n != 7 {
		t.Errorf("%d failures reported", n)
	}
}
