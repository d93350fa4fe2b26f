package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeHTTPBusyPort: `weir serve --http ADDR` on an address another
// program listens on fails the start, naming the address, before the
// server says it is ready.
func TestServeHTTPBusyPort(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	var out bytes.Buffer
	cmd := exec.Command(weirBinary, "serve", "--data", filepath.Join(t.TempDir(), "data"),
		"--listen", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--http", addr)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("weir still running 20s after starting on a busy --http port; log:\n%s", &out)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("weir exited with %v, want exit status 1; log:\n%s", err, &out)
	}
	log := out.String()
	if want := "--http " + addr; !strings.Contains(log, want) || !strings.Contains(log, "address already in use") {
		t.Errorf("the message does not name %q and say it is in use:\n%s", want, log)
	}
	if strings.Contains(log, "weir is ready") {
		t.Errorf("weir said it was ready before failing:\n%s", log)
	}
}

// TestServeHTTPMetrics: the real binary serves /metrics on --http, with
// the figures of what a client did.
func TestServeHTTPMetrics(t *testing.T) {
	httpAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s := &weirServer{Port: freePort(t), log: &bytes.Buffer{}}
	s.cmd = exec.Command(weirBinary, "serve", "--data", filepath.Join(t.TempDir(), "data"),
		"--listen", fmt.Sprintf("127.0.0.1:%d", s.Port), "--http", httpAddr)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-exited
			t.Errorf("weir did not exit within 5s of SIGTERM; log:\n%s", s.log)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + httpAddr + "/metrics")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case werr := <-exited:
			exited <- werr
			t.Fatalf("weir exited (%v); log:\n%s", werr, s.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no /metrics after 20s: %v; log:\n%s", err, s.log)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
	conn := connect(t, s.URL())
	ctx := ctxT(t)
	for _, q := range []string{
		"CREATE TABLE events (k bigint)",
		"CREATE STREAMING TABLE evens AS SELECT k FROM events WHERE k % 2 = 0",
		"INSERT INTO events SELECT g FROM generate_series(1, 100) g",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	want := `weir_streaming_input_rows_total{flow="",table="public.evens"} 100`
	var body string
	deadline = time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + httpAddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		if strings.Contains(body, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s in /metrics:\n%s", want, body)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
	for _, w := range []string{"weir_connections 1", `weir_streaming_output_rows_total{flow="",table="public.evens"} 50`, "process_resident_memory_bytes", "go_goroutines"} {
		if !strings.Contains(body, w) {
			t.Errorf("no %q in /metrics:\n%s", w, body)
		}
	}
}
