package planner

import (
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// timedCatalog has impressions(ad_id, imp_time) and clicks(ad_id, click_time),
// the tables of Databricks' and Spark's stream-stream join examples.
type timedCatalog struct{}

func (timedCatalog) LookupRelation(schema, name string) (*Relation, error) {
	switch name {
	case "impressions":
		return &Relation{OID: 20001, Schema: "public", Name: name, Kind: StoredTable,
			Cols: []RelColumn{{Name: "ad_id", T: types.Int8}, {Name: "imp_time", T: types.Timestamp}}}, nil
	case "clicks":
		return &Relation{OID: 20002, Schema: "public", Name: name, Kind: StoredTable,
			Cols: []RelColumn{{Name: "click_ad_id", T: types.Int8}, {Name: "click_time", T: types.Timestamp}}}, nil
	}
	return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", name)
}

func TestJoinTimeBounds(t *testing.T) {
	const h = int64(3600_000_000)
	cases := []struct {
		on     string
		lo, hi int64
		hasLo  bool
		hasHi  bool
	}{
		// Spark's documented example: click within an hour after the impression.
		{"click_ad_id = ad_id AND click_time >= imp_time AND click_time <= imp_time + interval '1 hour'", 0, h, true, true},
		{"click_ad_id = ad_id AND click_time BETWEEN imp_time AND imp_time + interval '1 hour'", 0, h, true, true},
		// Flink's spelling, bounds on the other side.
		{"ad_id = click_ad_id AND imp_time BETWEEN click_time - INTERVAL '1' HOUR AND click_time + INTERVAL '30' MINUTE", -h / 2, h, true, true},
		{"ad_id = click_ad_id AND imp_time > click_time - interval '2 hours' AND imp_time < click_time", 0, 2 * h, true, true},
		{"ad_id = click_ad_id AND click_time = imp_time", 0, 0, true, true},
		{"ad_id = click_ad_id AND interval '1 day' + imp_time >= click_time", 0, 24 * h, false, true},
		{"ad_id = click_ad_id AND click_time >= imp_time", 0, 0, true, false},
		{"ad_id = click_ad_id", 0, 0, false, false},
		// Months have no fixed length: no bound.
		{"ad_id = click_ad_id AND click_time <= imp_time + interval '1 month'", 0, 0, false, false},
	}
	for _, c := range cases {
		plan := planOf(t, timedCatalog{}, "SELECT * FROM impressions JOIN clicks ON "+c.on)
		js := joinsOf(plan)
		if len(js) != 1 {
			t.Fatalf("%s: %d joins", c.on, len(js))
		}
		j := js[0]
		lt, rt := 1, 1
		if j.Left.Columns()[0].Name == "click_ad_id" {
			t.Fatalf("%s: join sides swapped", c.on)
		}
		b := JoinTimeBounds(j, lt, rt)
		if b.HasLo != c.hasLo || b.HasHi != c.hasHi || (b.HasLo && b.Lo != c.lo) || (b.HasHi && b.Hi != c.hi) {
			t.Errorf("%s: got %+v, want lo=%d(%v) hi=%d(%v)", c.on, b, c.lo, c.hasLo, c.hi, c.hasHi)
		}
	}
}
