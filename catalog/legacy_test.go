package catalog

import (
	"testing"
	"time"
)

// Relations as the catalog stored them before typed options: every
// setting in one "Options" string map. (Text as json.Marshal wrote it.)
var legacyRelations = map[uint32]string{
	16390: `{"OID":16390,"Schema":"public","Name":"events","Kind":114,"Columns":[{"Name":"ts","Type":{"OID":1114,"Typmod":-1},"NotNull":false,"Default":""},{"Name":"v","Type":{"OID":20,"Typmod":-1},"NotNull":false,"Default":""}],"ViewSQL":"","Options":{"retention":"1 day 2 hours","watermark_column":"ts","watermark_delay_us":"5000000"},"Owner":10,"Created":"2026-11-30T10:00:00Z","PrimaryKey":null}`,
	16391: `{"OID":16391,"Schema":"public","Name":"plain","Kind":114,"Columns":[{"Name":"a","Type":{"OID":23,"Typmod":-1},"NotNull":false,"Default":""}],"ViewSQL":"","Options":{},"Owner":10,"Created":"2026-11-30T10:00:00Z","PrimaryKey":null}`,
	16392: `{"OID":16392,"Schema":"public","Name":"per_minute","Kind":83,"Columns":[{"Name":"n","Type":{"OID":20,"Typmod":-1},"NotNull":false,"Default":""}],"ViewSQL":"SELECT count(*) AS n FROM events","Options":{"definition":"CREATE STREAMING TABLE per_minute WITH (late_rows = late_t) AS SELECT count(*) AS n FROM STREAM events","late_rows":"late_t","output_mode":"update","state_fingerprint":"agg:1","trigger":"continuous"},"Owner":10,"Created":"2026-11-30T10:00:00Z","PrimaryKey":null}`,
}

func TestLegacyOptionsLoad(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	openCatalog(t, st) // bootstrap
	tx := st.Begin(true)
	for oid, v := range legacyRelations {
		if err := tx.Set(relKey(oid), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openStore(t, dir)
	c := openCatalog(t, st)

	ev, err := c.LookupRelation(path, "", "events")
	if err != nil {
		t.Fatal(err)
	}
	if want := (TableOptions{Retention: 26 * time.Hour, WatermarkColumn: "ts", WatermarkDelayUS: 5_000_000}); ev.Table == nil || *ev.Table != want || ev.Streaming != nil {
		t.Fatalf("events: table options %+v, want %+v", ev.Table, want)
	}
	if p, _ := c.LookupRelation(path, "", "plain"); p == nil || p.Table != nil {
		t.Fatalf("plain: %+v", p)
	}
	pm, err := c.LookupRelation(path, "", "per_minute")
	if err != nil {
		t.Fatal(err)
	}
	want := StreamingTable{
		Definition:       "CREATE STREAMING TABLE per_minute WITH (late_rows = late_t) AS SELECT count(*) AS n FROM STREAM events",
		OutputMode:       "update",
		Trigger:          "continuous",
		StateFingerprint: "agg:1",
		LateRows:         "late_t",
	}
	if pm.Streaming == nil || pm.Streaming.Definition != want.Definition || pm.Streaming.OutputMode != want.OutputMode ||
		pm.Streaming.Trigger != want.Trigger || pm.Streaming.StateFingerprint != want.StateFingerprint || pm.Streaming.LateRows != want.LateRows ||
		pm.Table != nil || pm.ViewSQL != "SELECT count(*) AS n FROM events" || pm.Kind != KindStreamingTable {
		t.Fatalf("per_minute: %+v / %+v, want %+v", pm, pm.Streaming, want)
	}

	// A changed relation is written back typed, and reads the same again.
	if _, err := c.CreateRelation(&Relation{Name: "fresh", Kind: KindStreamingTable, Streaming: &StreamingTable{Definition: "x", OutputMode: "append"}}, false); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openStore(t, dir)
	c = openCatalog(t, st)
	if f, err := c.LookupRelation(path, "", "fresh"); err != nil || f.Streaming == nil || f.Streaming.OutputMode != "append" {
		t.Fatalf("fresh after reopen: %+v %v", f, err)
	}
	st.Close()
}
