package engine_test

// Append flows seen from a client: SUBSCRIBE TO a target of two flows
// sends its rows, then each flow's new rows as they commit; DESCRIBE
// EXTENDED lists each flow with its state and its own checkpoint.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestFlowsSubscribeAndDescribe(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	ctx := context.Background()
	for _, s := range []string{
		"CREATE TABLE topic1 (k int, v text)",
		"CREATE TABLE topic2 (k int, v text)",
		"INSERT INTO topic1 VALUES (1, 'a')",
		"INSERT INTO topic2 VALUES (2, 'b')",
		"CREATE OR REFRESH STREAMING TABLE kafka_target",
		"CREATE FLOW topic1 AS INSERT INTO kafka_target BY NAME SELECT * FROM STREAM topic1",
		"CREATE FLOW topic2 COMMENT 'the second topic' AS INSERT INTO kafka_target BY NAME SELECT v, k FROM STREAM topic2",
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	sub := srv.connect(t)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := sub.Query(sctx, "SUBSCRIBE TO kafka_target")
	if err != nil {
		t.Fatalf("SUBSCRIBE: %v", err)
	}
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	if got, want := strings.Join(cols, ","), "weir_epoch,weir_diff,k,v"; got != want {
		t.Errorf("SUBSCRIBE columns %s, want %s", got, want)
	}
	ch := make(chan subRow, 100)
	errc := make(chan error, 1)
	go func() {
		for rows.Next() {
			var epoch int64
			var diff, k int32
			var v string
			if err := rows.Scan(&epoch, &diff, &k, &v); err != nil {
				errc <- err
				rows.Close()
				return
			}
			ch <- subRow{epoch: epoch, text: fmt.Sprintf("%+d|%d|%s", diff, k, v)}
		}
		rows.Close()
		errc <- rows.Err()
	}()
	e0 := expectRows(t, ch, errc, "initial rows", "+1|1|a", "+1|2|b")
	if _, err := c.Exec(ctx, "INSERT INTO topic2 VALUES (3, 'c')"); err != nil {
		t.Fatal(err)
	}
	if e1 := expectRows(t, ch, errc, "topic2's new row", "+1|3|c"); e1 <= e0 {
		t.Errorf("new row with weir_epoch %d, not after %d", e1, e0)
	}
	if _, err := c.Exec(ctx, "INSERT INTO topic1 VALUES (4, 'd')"); err != nil {
		t.Fatal(err)
	}
	expectRows(t, ch, errc, "topic1's new row", "+1|4|d")
	cancel()
	<-errc

	details := map[string]string{}
	drows, err := c.Query(ctx, "DESCRIBE TABLE EXTENDED kafka_target", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	for drows.Next() {
		var name, value, comment *string
		if err := drows.Scan(&name, &value, &comment); err != nil {
			t.Fatal(err)
		}
		if name != nil && value != nil {
			details[*name] = *value
		}
	}
	if err := drows.Err(); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"Flows":               "topic1, topic2",
		"Flow topic1":         "CREATE FLOW topic1 AS INSERT INTO kafka_target BY NAME SELECT * FROM STREAM topic1",
		"Flow topic2 Comment": "the second topic",
		"Output Mode":         "append",
	} {
		if details[key] != want {
			t.Errorf("DESCRIBE EXTENDED %q = %q, want %q", key, details[key], want)
		}
	}
	for _, f := range []string{"topic1", "topic2"} {
		if st := details["Flow "+f+" State"]; !strings.HasPrefix(st, "running, epoch ") {
			t.Errorf("Flow %s State = %q, want running, epoch ...", f, st)
		}
		if in := details["Flow "+f+" Input"]; in != f {
			t.Errorf("Flow %s Input = %q, want %s", f, in, f)
		}
		if cp := details["Flow "+f+" Checkpoint"]; !strings.Contains(cp, "epoch records under store key prefix e/0x") {
			t.Errorf("Flow %s Checkpoint = %q", f, cp)
		}
	}
	if details["Flow topic1 Checkpoint"] == details["Flow topic2 Checkpoint"] {
		t.Errorf("the two flows share a checkpoint: %q", details["Flow topic1 Checkpoint"])
	}
	if !strings.HasPrefix(details["State"], "running, 2 flows") {
		t.Errorf("State = %q", details["State"])
	}

	// A declared primary key is shown, as informational.
	if _, err := c.Exec(ctx, "CREATE OR REFRESH STREAMING TABLE keyed (id bigint PRIMARY KEY, v string) AS SELECT k::bigint AS id, v FROM STREAM topic1"); err != nil {
		t.Fatal(err)
	}
	if got, want := describeDetail(t, c, "keyed", "Primary Key"), "keyed_pkey PRIMARY KEY (id) NOT ENFORCED (informational; its columns are NOT NULL, which is enforced)"; got != want {
		t.Errorf("Primary Key = %q, want %q", got, want)
	}
}

// describeDetail is the value of one row of DESCRIBE EXTENDED name.
func describeDetail(t *testing.T, c *pgx.Conn, name, key string) string {
	t.Helper()
	rows, err := c.Query(context.Background(), "DESCRIBE EXTENDED "+name, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v, comment *string
		if err := rows.Scan(&k, &v, &comment); err != nil {
			t.Fatal(err)
		}
		if k != nil && *k == key && v != nil {
			return *v
		}
	}
	return ""
}
