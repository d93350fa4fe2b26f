package engine_test

// Streaming state memory (issue 8, point 2): streaming_progress reports
// each table's state_bytes and its limit; a table whose state passes the
// limit fails alone with 53200 naming the table and the limit, while the
// server and the other streaming tables go on.

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/weir-sql/weir/engine"
)

func TestStreamingStateLimit(t *testing.T) {
	// The server-wide limit applies to tables without the option.
	s := startServerWith(t, engine.Config{DataDir: t.TempDir(), StreamingStateMemory: 512 << 10})
	c := s.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE ev (k bigint, v bigint)",
		// unbounded keys, no watermark: its state only grows
		"CREATE STREAMING TABLE per_key WITH (state_memory_limit = '64kB') AS SELECT k, count(*) AS n FROM ev GROUP BY k",
		"CREATE STREAMING TABLE per_key_server AS SELECT k, sum(v) AS s FROM ev GROUP BY k",
		// three groups: far under any limit
		"CREATE STREAMING TABLE few AS SELECT k % 3 AS g, count(*) AS n FROM ev GROUP BY 1",
		"INSERT INTO ev SELECT g, g FROM generate_series(1, 100) g",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	waitConsumed(t, c, []string{"per_key", "per_key_server", "few"}, 100, 10*time.Second)
	var stateBytes, limit int64
	if err := c.QueryRow(ctx, "SELECT state_bytes, state_memory_limit FROM weir_catalog.streaming_progress WHERE name = 'per_key'").Scan(&stateBytes, &limit); err != nil {
		t.Fatal(err)
	}
	if stateBytes <= 0 || limit != 64<<10 {
		t.Fatalf("per_key: state_bytes %d, state_memory_limit %d; want > 0 and 65536", stateBytes, limit)
	}
	if err := c.QueryRow(ctx, "SELECT state_memory_limit FROM weir_catalog.streaming_progress WHERE name = 'few'").Scan(&limit); err != nil || limit != 512<<10 {
		t.Fatalf("few: state_memory_limit %d (%v), want the server's 524288", limit, err)
	}

	// 20,000 more keys: both per-key tables pass their limits.
	if _, err := c.Exec(ctx, "INSERT INTO ev SELECT g, g FROM generate_series(101, 20100) g"); err != nil {
		t.Fatal(err)
	}
	for name, lim := range map[string]string{"per_key": "64 kB", "per_key_server": "512 kB"} {
		waitFor(t, c, "SELECT status = 'failed' FROM weir_catalog.streaming_progress WHERE name = '"+name+"'")
		var lastErr string
		var input, bytes int64
		if err := c.QueryRow(ctx, "SELECT last_error, input_rows, state_bytes FROM weir_catalog.streaming_progress WHERE name = '"+name+"'").Scan(&lastErr, &input, &bytes); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(lastErr, "streaming table "+name+":") || !strings.Contains(lastErr, "over the limit of "+lim) {
			t.Errorf("%s: last_error %q, want the table and the limit %s named", name, lastErr, lim)
		}
		if input != 100 {
			t.Errorf("%s: input_rows %d after failing, want the 100 of the committed epochs", name, input)
		}
		// REFRESH says why, with the SQLSTATE of the failure's cause.
		_, err := c.Exec(ctx, "REFRESH STREAMING TABLE "+name)
		if err == nil || !strings.Contains(err.Error(), "over the limit") {
			t.Errorf("REFRESH %s: %v, want the limit error", name, err)
		}
		// Its last committed rows are still readable.
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+name).Scan(&n); err != nil || n != 100 {
			t.Errorf("%s after failing: %d rows (%v), want the 100 committed", name, n, err)
		}
	}
	// The small table and the server go on.
	waitConsumed(t, c, []string{"few"}, 20100, 10*time.Second)
	var total int64
	if err := c.QueryRow(ctx, "SELECT sum(n) FROM few").Scan(&total); err != nil || total != 20100 {
		t.Fatalf("few: sum(n) %d (%v), want 20100", total, err)
	}
	if _, err := c.Exec(ctx, "CREATE STREAMING TABLE bad WITH (state_memory_limit = 'lots') AS SELECT k FROM ev"); err == nil || !strings.Contains(err.Error(), "state_memory_limit") {
		t.Fatalf("bad option: %v", err)
	}
}
