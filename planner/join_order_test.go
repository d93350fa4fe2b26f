package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// sizedCatalog is a catalog of stored tables with known row counts.
type sizedCatalog map[string]float64

func (c sizedCatalog) LookupRelation(schema, name string) (*Relation, error) {
	if _, ok := c[name]; !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	oid := uint32(16384)
	for _, ch := range name {
		oid += uint32(ch)
	}
	return &Relation{OID: oid, Schema: "public", Name: name, Kind: StoredTable,
		Cols: []RelColumn{{Name: "id", T: types.Int8}, {Name: "ref", T: types.Int8}, {Name: "v", T: types.Text}}}, nil
}

func (c sizedCatalog) EstimateRows(s *Scan) float64 { return c[s.Name] }

func planOf(t *testing.T, cat Catalog, sql string) Node {
	t.Helper()
	stmts, err := parse.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	q, err := BindQuery(cat, stmts[0].Node, nil)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return q.Plan
}

func joinsOf(n Node) []*Join {
	var out []*Join
	var walk func(Node)
	walk = func(n Node) {
		if j, ok := n.(*Join); ok {
			out = append(out, j)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return out
}

// scansUnder lists the relations under n, in plan order.
func scansUnder(n Node) []string {
	var out []string
	var walk func(Node)
	walk = func(n Node) {
		if s, ok := n.(*Scan); ok {
			out = append(out, s.Alias)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return out
}

// A chain of equalities written in the worst order: every join must be a
// hash join (no cross product), and the filtered tiny relation must be
// joined first, on the build side.
func TestJoinOrderAvoidsCrossProducts(t *testing.T) {
	cat := sizedCatalog{"huge": 1e6, "big": 1e5, "mid": 1e3, "tiny": 10}
	plan := planOf(t, cat, "SELECT huge.v FROM huge, big, mid, tiny WHERE huge.ref = big.id AND big.ref = mid.id AND mid.ref = tiny.id AND tiny.v = 'x'")
	joins := joinsOf(plan)
	if len(joins) != 3 {
		t.Fatalf("%d joins, want 3:\n%s", len(joins), strings.Join(Explain(plan), "\n"))
	}
	for _, j := range joins {
		if j.Kind != InnerJoin || len(j.LeftKeys) == 0 {
			t.Errorf("join %v has no hash keys:\n%s", j.Kind, strings.Join(Explain(plan), "\n"))
		}
		if j.Cond != nil {
			t.Errorf("equalities left as a join filter: %s", j.Cond)
		}
	}
	// The deepest join holds tiny; huge is probed last.
	deepest := joins[len(joins)-1]
	if got := scansUnder(deepest); len(got) != 2 || !contains2(got, "tiny") || !contains2(got, "mid") {
		t.Errorf("deepest join reads %v, want mid and tiny (the smallest, linked):\n%s", got, strings.Join(Explain(plan), "\n"))
	}
	if got := scansUnder(joins[0].Left); len(got) != 1 || got[0] != "huge" {
		t.Errorf("top join probes %v, want huge (the largest) on its probe side:\n%s", got, strings.Join(Explain(plan), "\n"))
	}
	// The filter on tiny sits on its scan, below every join.
	if !strings.Contains(strings.Join(Explain(deepest), "\n"), "Filter: (v = x)") {
		t.Errorf("tiny's filter is not pushed below the joins:\n%s", strings.Join(Explain(plan), "\n"))
	}
}

// A relation linked to the others only through an outer join is not
// reordered across it; the WHERE conjunct on the nullable side stays above.
func TestJoinOrderKeepsOuterJoins(t *testing.T) {
	cat := sizedCatalog{"a": 1000, "b": 10, "c": 100}
	plan := planOf(t, cat, "SELECT a.v FROM a LEFT JOIN b ON a.ref = b.id JOIN c ON c.id = a.id WHERE b.v IS NULL AND c.v = 'y'")
	var left *Join
	for _, j := range joinsOf(plan) {
		if j.Kind == LeftJoin {
			left = j
		}
	}
	if left == nil {
		t.Fatalf("no left join:\n%s", strings.Join(Explain(plan), "\n"))
	}
	if got := scansUnder(left.Right); len(got) != 1 || got[0] != "b" {
		t.Errorf("nullable side of the left join reads %v, want b:\n%s", got, strings.Join(Explain(plan), "\n"))
	}
	if strings.Contains(strings.Join(Explain(left.Right), "\n"), "IS NULL") {
		t.Errorf("b.v IS NULL was pushed into the nullable side:\n%s", strings.Join(Explain(plan), "\n"))
	}
}

// Beyond dpLimit relations the greedy order still forms no cross product.
func TestJoinOrderGreedy(t *testing.T) {
	cat := sizedCatalog{}
	var from, where []string
	for i := 0; i < dpLimit+6; i++ {
		name := fmt.Sprintf("r%02d", i)
		cat[name] = float64(10 * (i + 1))
		from = append(from, name)
		if i > 0 {
			where = append(where, fmt.Sprintf("r%02d.ref = r%02d.id", i-1, i))
		}
	}
	plan := planOf(t, cat, "SELECT count(*) FROM "+strings.Join(from, ", ")+" WHERE "+strings.Join(where, " AND "))
	joins := joinsOf(plan)
	if len(joins) != dpLimit+5 {
		t.Fatalf("%d joins, want %d", len(joins), dpLimit+5)
	}
	for _, j := range joins {
		if len(j.LeftKeys) == 0 {
			t.Errorf("a join without hash keys:\n%s", strings.Join(Explain(plan), "\n"))
			break
		}
	}
}

func contains2(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// A star: the fact table meets the selective dimension first.
func TestJoinOrderStarSelectiveFirst(t *testing.T) {
	cat := sizedCatalog{"fact": 1e6, "d1": 50, "d2": 1e5, "d3": 1e4}
	plan := planOf(t, cat, "SELECT count(*) FROM d2, fact, d3, d1 WHERE fact.ref = d2.id AND fact.id = d3.id AND fact.v = d1.v AND d1.ref = 7")
	joins := joinsOf(plan)
	if len(joins) != 3 {
		t.Fatalf("%d joins, want 3", len(joins))
	}
	if got := scansUnder(joins[len(joins)-1]); len(got) != 2 || !contains2(got, "fact") || !contains2(got, "d1") {
		t.Errorf("first join reads %v, want fact and the filtered d1:\n%s", got, strings.Join(Explain(plan), "\n"))
	}
}
