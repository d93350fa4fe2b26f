package parse

import (
	"testing"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func TestParseSourceStatements(t *testing.T) {
	st, err := ParseStreaming(`CREATE SOURCE bid WITH (connector = 'nexmark', table = 'bid', events_per_second = 100000, max_events = 1000000, seed = 1)`)
	if err != nil || st == nil || st.Kind != CreateSource || st.Name != "bid" || st.Options["connector"] != "nexmark" ||
		st.Options["events_per_second"] != "100000" || st.SourceColumns != "" || st.Watermark != nil {
		t.Fatalf("%+v, %v", st, err)
	}
	// RisingWave's form: columns, a watermark, dotted option names.
	st, err = ParseStreaming(`create source if not exists s1.nexmark_bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND) WITH (connector = 'nexmark', nexmark.table.type = 'Bid', nexmark.split.num = '2', "nexmark.min.event.gap.in.ns" = '100');`)
	if err != nil || st == nil || st.Kind != CreateSource || st.Name != "nexmark_bid" || st.Schema != "s1" || !st.IfNotExists {
		t.Fatalf("%+v, %v", st, err)
	}
	if st.Watermark == nil || st.Watermark.Column != "date_time" || st.Watermark.Delay != 4*time.Second {
		t.Fatalf("watermark %+v", st.Watermark)
	}
	if st.SourceColumns != "auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR" {
		t.Fatalf("columns %q", st.SourceColumns)
	}
	if st.Options["nexmark.table.type"] != "Bid" || st.Options["nexmark.min.event.gap.in.ns"] != "100" || st.Options["nexmark.split.num"] != "2" {
		t.Fatalf("options %v", st.Options)
	}
	st, err = ParseStreaming(`CREATE SOURCE p (WATERMARK FOR date_time AS date_time) WITH (connector = 'nexmark', table = 'person')`)
	if err != nil || st.SourceColumns != "" || st.Watermark == nil || st.Watermark.Delay != 0 {
		t.Fatalf("%+v, %v", st, err)
	}
	st, err = ParseStreaming(`DROP SOURCE IF EXISTS a, public.b CASCADE`)
	if err != nil || st.Kind != DropSource || !st.IfExists || !st.Cascade || len(st.Names) != 2 || st.Name != "a" || st.Names[1] != (QualifiedName{"public", "b"}) {
		t.Fatalf("%+v, %v", st, err)
	}
	st, err = ParseStreaming(`drop source a restrict`)
	if err != nil || st.Kind != DropSource || st.Cascade {
		t.Fatalf("%+v, %v", st, err)
	}
	st, err = ParseStreaming(`SHOW SOURCES`)
	if err != nil || st.Kind != ShowSources {
		t.Fatalf("%+v, %v", st, err)
	}
	// Not ours: PostgreSQL statements that merely mention a source.
	for _, q := range []string{`SELECT source FROM t`, `CREATE TABLE source (a int)`, `SHOW search_path`} {
		if st, err := ParseStreaming(q); st != nil || err != nil {
			t.Errorf("%s: %+v, %v", q, st, err)
		}
	}
	for q, code := range map[string]string{
		`CREATE SOURCE bid`:                               sqlerr.SyntaxError,
		`CREATE SOURCE bid (a int`:                        sqlerr.SyntaxError,
		`CREATE SOURCE WITH (connector = 'x')`:            sqlerr.SyntaxError,
		`CREATE SOURCE b WITH (connector = 'x') x`:        sqlerr.SyntaxError,
		`CREATE SOURCE b WITH (table = 'a', table = 'b')`: sqlerr.SyntaxError,
		`DROP SOURCE`:     sqlerr.SyntaxError,
		`DROP SOURCE a b`: sqlerr.SyntaxError,
		`SHOW SOURCES x`:  sqlerr.SyntaxError,
		`CREATE SOURCE b (t timestamp, WATERMARK FOR t AS t + INTERVAL '1 second') WITH (connector = 'nexmark')`: sqlerr.FeatureNotSupported,
	} {
		if _, err := ParseStreaming(q); sqlerr.Code(err) != code {
			t.Errorf("%s: %v, want %s", q, err, code)
		}
	}
}
