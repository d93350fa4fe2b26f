package engine_test

import (
	"fmt"
	"strings"
)

// genMultiJoin is a join of three or four relations: some joined with
// JOIN / LEFT / RIGHT / FULL JOIN … ON, the rest listed after a comma and
// linked by WHERE equalities, so that the join planner (planner/
// join_order.go) reorders them while PostgreSQL decides its own order.
// Keys are chosen so that results stay small (a has 251 values, t3.k
// matches g); only the 10-row t3 may be left unlinked (a cross product).
func (g *gen) genMultiJoin() *query {
	q := &query{kind: "join"}
	aliases := []string{"x", "y", "z", "w"}
	n := 3 + g.n(2)
	tabs := []table{diffTables[g.n(2)]}
	for i := 1; i < n; i++ {
		tabs = append(tabs, diffTables[g.n(3)])
	}
	link := func(i int) string {
		j := g.n(i)
		a, b := tabs[j], tabs[i]
		switch {
		case a.name != "t3" && b.name != "t3":
			key := g.pick("a", "a", "a", "dt", "c")
			return fmt.Sprintf("%s.%s = %s.%s", aliases[j], key, aliases[i], key)
		case a.name == "t3" && b.name == "t3":
			return fmt.Sprintf("%s.k = %s.k", aliases[j], aliases[i])
		case a.name == "t3":
			return fmt.Sprintf("%s.k = %s.g", aliases[j], aliases[i])
		}
		return fmt.Sprintf("%s.g = %s.k", aliases[j], aliases[i])
	}
	from := tabs[0].name + " x"
	sc := scopeOf(tabs[0], "x")
	comma := false
	var links []string
	for i := 1; i < n; i++ {
		if !comma && g.chance(55) {
			kind := g.pick("JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "JOIN")
			cond := link(i)
			sc = append(sc, scopeOf(tabs[i], aliases[i])...)
			if g.chance(25) {
				g.scope = sc
				cond += " AND " + g.boolExpr(1)
			}
			from += fmt.Sprintf(" %s %s %s ON %s", kind, tabs[i].name, aliases[i], cond)
			continue
		}
		comma = true
		from += ", " + tabs[i].name + " " + aliases[i]
		sc = append(sc, scopeOf(tabs[i], aliases[i])...)
		if tabs[i].name != "t3" || g.chance(70) {
			links = append(links, link(i))
		}
	}
	g.scope = sc
	q.left.from = from
	q.left.items, q.left.types = g.items(1 + g.n(4))
	if w := g.maybeWhere(50); w != "" {
		links = append(links, "("+w+")")
	}
	q.left.where = strings.Join(links, " AND ")
	q.left.distinct = g.chance(15)
	g.finish(q)
	return q
}
