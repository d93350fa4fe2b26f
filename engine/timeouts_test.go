package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestTimeoutSettings compares SET and SHOW of the timeout settings with
// PostgreSQL's: units, rounding, ranges, error messages.
func TestTimeoutSettings(t *testing.T) {
	sideBySide(t, nil, func(t *testing.T, tg target, _ []string) []string {
		var log []string
		s := tg.connect(t, "")
		values := []string{"100", "'100'", "'1s'", "'250ms'", "1000", "60000", "'90s'", "'1.5s'", "'1min'", "'2h'", "'1d'",
			"86400000", "3600000", "'1500us'", "'100us'", "1.4", "0", "'-1'", "-5", "'abc'", "'10 xyz'", "'10 s'",
			"2147483647", "2147483648", "'3000000s'", "DEFAULT"}
		for _, name := range []string{"statement_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout"} {
			for _, v := range values {
				// One round trip, so a short idle timeout cannot fire
				// between the SET and the RESET.
				settings := fmt.Sprintf(" SELECT setting || ' ' || unit FROM pg_settings WHERE name = '%s';", name)
				if v == "'1500us'" || v == "1.4" {
					// A timeout of 1-2 ms can cancel the pg_settings scan.
					settings = ""
				}
				q := fmt.Sprintf("SET %s = %s; SHOW %s; SELECT current_setting('%s');%s RESET %s",
					name, v, name, name, settings, name)
				res, err := s.c.PgConn().Exec(context.Background(), q).ReadAll()
				// A 1-2 ms timeout can cancel even SHOW on a loaded
				// machine: what is compared is the setting, so try again.
				var pe *pgconn.PgError
				for try := 0; settings == "" && errors.As(err, &pe) && pe.Code == "57014" && try < 20; try++ {
					mustExec(t, s.c, "RESET "+name)
					res, err = s.c.PgConn().Exec(context.Background(), q).ReadAll()
				}
				var out []string
				for _, r := range res {
					for _, row := range r.Rows {
						out = append(out, string(row[0]))
					}
				}
				detail := errOutcome(err)
				if errors.As(err, &pe) && pe.Hint != "" {
					detail += " HINT " + pe.Hint
				}
				if err != nil {
					mustExec(t, s.c, "RESET "+name)
				}
				log = append(log, fmt.Sprintf("SET %s = %s: %s; SHOW, current_setting: %s", name, v, detail, strings.Join(out, ", ")))
			}
			mustExec(t, s.c, "RESET "+name)
		}
		return log
	})
}

// TestTimeoutsFire compares what the client sees when each timeout runs
// out, with the value given by SET and in the startup packet.
func TestTimeoutsFire(t *testing.T) {
	sideBySide(t, nil, func(t *testing.T, tg target, _ []string) []string {
		var log []string
		admin := tg.connect(t, "")
		rec := func(what, got string) { log = append(log, what+": "+got) }

		s := tg.connect(t, "")
		mustExec(t, s.c, "SET statement_timeout = '200ms'")
		start := time.Now()
		rec("statement_timeout", outcomeWithin(t, s.start("SELECT pg_sleep(20)"), 5*time.Second))
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: statement_timeout of 200ms fired after %v", tg.name, d)
		}
		rec("session goes on", s.query("SELECT 1"))
		rec("short statement", s.query("SELECT pg_sleep(0.01)::text"))
		mustExec(t, s.c, "SET statement_timeout = 0")

		// In the startup packet (libpq's options, PGOPTIONS) and as a
		// plain startup parameter.
		for i, url := range []string{
			tg.url + "&options=-c%20statement_timeout%3D150",
			tg.url + "&options=--statement_timeout%3D150ms",
			tg.url + "&statement_timeout=150",
		} {
			o := target{tg.name, url}.connect(t, "")
			rec(fmt.Sprintf("startup %d SHOW", i), o.query("SHOW statement_timeout"))
			rec(fmt.Sprintf("startup %d sleep", i), outcomeWithin(t, o.start("SELECT pg_sleep(20)"), 5*time.Second))
		}
		t.Setenv("PGOPTIONS", "-c statement_timeout=150 -c idle_session_timeout=1h")
		o := tg.connect(t, "")
		rec("PGOPTIONS SHOW", o.query("SHOW statement_timeout")+" "+o.query("SHOW idle_session_timeout"))
		rec("PGOPTIONS sleep", outcomeWithin(t, o.start("SELECT pg_sleep(20)"), 5*time.Second))
		t.Setenv("PGOPTIONS", "")

		// Idle timeouts end the session; the client reads the FATAL.
		idle := func(setting, setup string) string {
			c := tg.connect(t, "")
			mustExec(t, c.c, "SET "+setting+" = '150ms'")
			if setup != "" {
				mustExec(t, c.c, setup)
			}
			waitGone(t, admin, c.pid, 5*time.Second)
			_, err := c.c.Exec(context.Background(), "SELECT 1")
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				return pe.Severity + " " + pe.Code + " " + pe.Message
			}
			return fmt.Sprintf("closed: %v", err != nil)
		}
		rec("idle in transaction", idle("idle_in_transaction_session_timeout", "BEGIN"))
		rec("idle session", idle("idle_session_timeout", ""))

		// idle_in_transaction_session_timeout does not end an idle session
		// outside a transaction, nor does idle_session_timeout fire inside
		// one; a statement shorter than the timeout is untouched.
		c := tg.connect(t, "")
		mustExec(t, c.c, "SET idle_in_transaction_session_timeout = '100ms'")
		mustExec(t, c.c, "SELECT pg_sleep(0.3)")
		rec("idle outside transaction", c.query("SELECT 'alive'"))
		mustExec(t, c.c, "SET idle_in_transaction_session_timeout = 0")
		mustExec(t, c.c, "SET idle_session_timeout = '100ms'")
		mustExec(t, c.c, "BEGIN")
		mustExec(t, c.c, "SELECT pg_sleep(0.3)")
		rec("in transaction, running", c.query("SELECT 'alive'"))
		mustExec(t, c.c, "COMMIT")
		return log
	})
}

func TestSleepFunctions(t *testing.T) {
	w := startServer(t, t.TempDir())
	c := w.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"SELECT pg_sleep_for('150 milliseconds')",
		"SELECT pg_sleep_until(clock_timestamp() + interval '150 milliseconds')",
		"SELECT pg_sleep(0.15)",
	} {
		start := time.Now()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if d := time.Since(start); d < 140*time.Millisecond || d > 3*time.Second {
			t.Errorf("%s took %v", q, d)
		}
	}
	mustExec(t, c, "SET statement_timeout = 100")
	for _, q := range []string{
		"SELECT pg_sleep_for('1 minute')",
		"SELECT pg_sleep_until(now() + interval '1 hour')",
	} {
		_, err := c.Exec(ctx, q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to statement timeout" {
			t.Errorf("%s under statement_timeout: %v", q, err)
		}
		// The same through the simple protocol, where the timeout applies
		// to each statement of a multi-statement string.
		_, err = c.PgConn().Exec(ctx, "SELECT pg_sleep(0.06); SELECT pg_sleep(0.06); "+q).ReadAll()
		if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to statement timeout" {
			t.Errorf("simple protocol %s under statement_timeout: %v", q, err)
		}
	}
}
