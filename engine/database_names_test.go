package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// A catalog other than the database is refused where the client wrote it,
// in a plain statement and in a streaming one (whose query weir rewrites).
func TestCrossDatabasePositions(t *testing.T) {
	srv := startServer(t, t.TempDir())
	defer srv.stop()
	conn := srv.connect(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE src (ts timestamp, v int)"); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"SELECT v FROM public.src JOIN main.public.src AS o ON true",
		"CREATE STREAMING TABLE bad AS SELECT v FROM STREAM main.public.src WATERMARK ts DELAY OF INTERVAL 1 SECOND AS s",
		"CREATE STREAMING TABLE bad AS SELECT v FROM STREAM src s JOIN main.public.src AS o ON true",
	} {
		_, err := conn.Exec(ctx, sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.HasPrefix(pe.Message, "cross-database references are not implemented") {
			t.Fatalf("%s: %v", sql, err)
		}
		if want := strings.Index(sql, "main.") + 1; int(pe.Position) != want {
			t.Errorf("%s: position %d, want %d", sql, pe.Position, want)
		}
	}
}
