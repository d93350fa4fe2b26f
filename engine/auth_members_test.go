package engine_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/wire"
)

// TestHBAGroupsThroughEngine: pg_hba rules' +role matches the members of
// a role as the engine's catalog knows them (also indirect ones); a
// refused login goes through the engine's wire.AuthObserver.
func TestHBAGroupsThroughEngine(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := engine.Open(engine.Config{DataDir: t.TempDir(), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	hba, err := wire.ParseHBA(strings.NewReader("host all weir 127.0.0.1/32 trust\nhost all +staff 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 reject\n"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := wire.NewServer(eng, wire.Config{HBA: hba, Logger: logger})
	go srv.Serve(l)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	url := func(user string) string { return fmt.Sprintf("postgres://%s@%s/weir?sslmode=disable", user, l.Addr()) }
	admin, err := pgx.Connect(ctx, url("weir"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, q := range []string{"CREATE ROLE staff", "CREATE ROLE leads IN ROLE staff", "CREATE ROLE sam LOGIN IN ROLE leads", "CREATE ROLE eve LOGIN"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	c, err := pgx.Connect(ctx, url("sam"))
	if err != nil {
		t.Fatalf("sam (member of staff through leads): %v", err)
	}
	c.Close(ctx)
	_, err = pgx.Connect(ctx, url("eve"))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28000" ||
		pe.Message != `pg_hba.conf rejects connection for host "127.0.0.1", user "eve", database "weir", no encryption` {
		t.Errorf("eve: %v", err)
	}
}
