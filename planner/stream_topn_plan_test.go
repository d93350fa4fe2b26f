package planner

import "testing"

// filtersOverWindows finds the filters right above a window function.
func filtersOverWindows(n Node) []*Filter {
	var out []*Filter
	var walk func(Node)
	walk = func(n Node) {
		if f, ok := n.(*Filter); ok {
			in := f.Input
			if p, isP := in.(*Project); isP {
				in = p.Input
			}
			if _, isW := in.(*Window); isW {
				out = append(out, f)
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return out
}

func TestMatchStreamTopN(t *testing.T) {
	const tumble = "TUMBLE(impressions, imp_time, INTERVAL '10 minutes')"
	cases := []struct {
		sql      string
		n        int64
		closeCol bool
		residual bool
	}{
		// RisingWave's and Flink's Top-N spelling.
		{"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY ad_id ORDER BY imp_time DESC) AS rn FROM impressions) x WHERE rn <= 3", 3, false, false},
		{"SELECT ad_id FROM (SELECT *, row_number() OVER (PARTITION BY ad_id ORDER BY imp_time DESC) AS rn FROM impressions) x WHERE rn = 1", 1, false, false},
		{"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY ad_id ORDER BY imp_time) AS rn FROM impressions) x WHERE 5 > rn AND ad_id > 7", 4, false, true},
		// Flink's window Top-N.
		{"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY window_start, window_end ORDER BY ad_id DESC) AS rn FROM " + tumble + ") x WHERE rn <= 3", 3, true, false},
		{"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY window_start ORDER BY ad_id DESC) AS rn FROM " + tumble + ") x WHERE rn <= 2", 2, true, false},
	}
	for _, c := range cases {
		fs := filtersOverWindows(planOf(t, timedCatalog{}, c.sql))
		if len(fs) != 1 {
			t.Fatalf("%s: %d filters over windows", c.sql, len(fs))
		}
		tn, ok := MatchStreamTopN(fs[0], false)
		if !ok {
			t.Fatalf("%s: not a Top-N", c.sql)
		}
		if tn.N != c.n || (tn.CloseCol >= 0) != c.closeCol || (tn.Residual != nil) != c.residual {
			t.Errorf("%s: got N=%d close=%d residual=%v", c.sql, tn.N, tn.CloseCol, tn.Residual)
		}
		if c.closeCol && tn.Input.Columns()[tn.CloseCol].Name == "window_start" && tn.CloseOffset != 600_000_000 {
			t.Errorf("%s: close offset %d", c.sql, tn.CloseOffset)
		}
	}
	// Not Top-N: no upper bound on the row number.
	fs := filtersOverWindows(planOf(t, timedCatalog{}, "SELECT * FROM (SELECT *, row_number() OVER (ORDER BY imp_time) AS rn FROM impressions) x WHERE rn > 3"))
	if _, ok := MatchStreamTopN(fs[0], false); ok {
		t.Error("rn > 3 was taken for a Top-N")
	}
}
