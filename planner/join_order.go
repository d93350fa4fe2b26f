package planner

import (
	"math/bits"
	"strings"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// Join ordering, as PostgreSQL's planner does it (make_one_rel over the
// join search space): the relations of a FROM list and of its inner and
// cross joins form one join problem. Every WHERE and ON conjunct is placed
// at the lowest point that has all the relations it reads; equalities
// between relations become hash-join keys; and the order is chosen by
// estimated cardinality, by dynamic programming over subsets of up to
// dpLimit relations and greedily beyond. A join without a condition (a
// cross product) is formed only where no condition links the relations.
//
// Outer joins, subqueries and function scans are leaves of the problem:
// nothing is reordered across them. Inside an outer join each side is a
// join problem of its own; WHERE conjuncts that read only the preserved
// side, and ON conjuncts that read only the nullable side, are pushed into
// that side (they keep or drop the same rows there as above the join).
//
// The planned tree produces its columns in another order than the FROM
// list; a Project on top restores the FROM order, which is the order the
// scope resolved names against.

// dpLimit is the largest join problem solved exhaustively (3^n splits).
const dpLimit = 12

// relSet is a set of leaves of one join problem.
type relSet uint64

func (s relSet) has(t relSet) bool { return s&t == t }

// joinLeaf is one relation of a join problem: its plan and where its
// columns lie in the FROM list's column order.
type joinLeaf struct {
	node       Node
	off, width int
	conjs      []expr.Expr // single-relation conjuncts, over the leaf's own columns
}

// joinConj is a conjunct that reads two or more leaves, over the FROM
// list's column order.
type joinConj struct {
	e    expr.Expr
	rels relSet
	// An equality whose two sides read disjoint leaves can be a hash key
	// of any join that separates them.
	eqL, eqR         expr.Expr
	eqLRels, eqRRels relSet
	sel              float64
}

type joinProblem struct {
	b       *binder
	es      *estimator
	leaves  []*joinLeaf
	colLeaf []int // column of the FROM order → leaf
	conjs   []*joinConj
	pending []expr.Expr // ON conjuncts met while collecting, FROM order
	top     []expr.Expr // evaluated above the problem, FROM order
}

// planJoins plans the FROM tree with the WHERE predicate (nil if none) and
// returns a plan with the same output columns as from.
func (b *binder) planJoins(from Node, where expr.Expr) Node {
	return b.planJoinTree(from, where, newEstimator(b.cat))
}

func (b *binder) planJoinTree(from Node, where expr.Expr, es *estimator) Node {
	p := &joinProblem{b: b, es: es}
	p.collect(from, 0)
	if len(p.leaves) > 64 {
		// Beyond what a relSet holds: keep the written order.
		if where == nil {
			return from
		}
		return pushFilter(from, where)
	}
	p.colLeaf = make([]int, len(from.Columns()))
	for i, l := range p.leaves {
		for c := l.off; c < l.off+l.width; c++ {
			p.colLeaf[c] = i
		}
	}
	for _, c := range p.pending {
		p.add(c)
	}
	if where != nil {
		for _, c := range conjuncts(where) {
			p.add(c)
		}
	}
	for _, l := range p.leaves {
		l.node = b.planLeaf(l.node, l.conjs, es)
	}
	var plan Node
	var layout []int
	if len(p.leaves) == 1 {
		plan = p.leaves[0].node
	} else {
		plan, layout = p.build(p.order())
	}
	if !isIdentity(layout) {
		cols := from.Columns()
		pos := make([]int, len(cols))
		for i, g := range layout {
			pos[g] = i
		}
		exprs := make([]expr.Expr, len(cols))
		for g, c := range cols {
			exprs[g] = &expr.ColumnRef{Index: pos[g], T: c.T, Name: c.Name}
		}
		plan = &Project{Input: plan, Exprs: exprs, Cols: cols, Reorder: true}
	}
	if len(p.top) > 0 {
		plan = &Filter{Input: plan, Pred: andOf(p.top)}
	}
	return plan
}

func isIdentity(layout []int) bool {
	for i, g := range layout {
		if i != g {
			return false
		}
	}
	return true
}

func andOf(es []expr.Expr) expr.Expr {
	if len(es) == 1 {
		return es[0]
	}
	return &expr.BoolOp{And: true, Args: es}
}

// collect gathers the leaves under n, whose columns start at off, and the
// conditions of the inner joins between them.
func (p *joinProblem) collect(n Node, off int) {
	j, ok := n.(*Join)
	if ok && (j.Kind == InnerJoin || j.Kind == CrossJoin) {
		if conds, ok := p.joinConditions(j); ok {
			p.collect(j.Left, off)
			p.collect(j.Right, off+len(j.Left.Columns()))
			for _, c := range conds {
				shifted, _ := remapColumns(c, func(i int) int { return i + off })
				p.pending = append(p.pending, shifted)
			}
			return
		}
	}
	p.leaves = append(p.leaves, &joinLeaf{node: n, off: off, width: len(n.Columns())})
}

// joinConditions returns an inner join's keys and condition as conjuncts
// over its left-then-right columns, or false if one of them cannot be
// moved (then the join stays as written, a leaf).
func (p *joinProblem) joinConditions(j *Join) ([]expr.Expr, bool) {
	nl := len(j.Left.Columns())
	var out []expr.Expr
	for i := range j.LeftKeys {
		rk, ok := remapColumns(j.RightKeys[i], func(c int) int { return c + nl })
		if !ok {
			return nil, false
		}
		eq, err := p.b.opOver("=", []expr.Expr{j.LeftKeys[i], rk}, -1)
		if err != nil {
			return nil, false
		}
		out = append(out, eq)
	}
	if j.Cond != nil {
		out = append(out, conjuncts(j.Cond)...)
	}
	for _, c := range out {
		if !movable(c) {
			return nil, false
		}
	}
	return out, true
}

// movable reports whether a conjunct may be evaluated at another point of
// the plan than where it was written: not volatile (it must run as often as
// the query says), no subquery (its correlation reads the columns of the
// row it is evaluated on by position), and every column reference
// reachable for renumbering.
func movable(c expr.Expr) bool {
	ok := true
	walkExpr(c, func(x expr.Expr) {
		switch f := x.(type) {
		case *expr.Subquery:
			ok = false
		case *expr.FuncCall:
			if expr.IsVolatile(f.Name) {
				ok = false
			}
		}
	})
	if !ok {
		return false
	}
	_, ok = remapColumns(c, func(i int) int { return i })
	return ok
}

// remapColumns renumbers every column reference of e; false if some
// reference was out of mapColumnRefs' reach.
func remapColumns(e expr.Expr, fn func(int) int) (expr.Expr, bool) {
	want := 0
	walkExpr(e, func(x expr.Expr) {
		if _, ok := x.(*expr.ColumnRef); ok {
			want++
		}
	})
	got := 0
	out := mapColumnRefs(e, func(c *expr.ColumnRef) expr.Expr {
		got++
		return &expr.ColumnRef{Index: fn(c.Index), T: c.T, Name: c.Name}
	})
	return out, got == want
}

func (p *joinProblem) relsOf(e expr.Expr) relSet {
	var s relSet
	walkExpr(e, func(x expr.Expr) {
		if c, ok := x.(*expr.ColumnRef); ok && c.Index >= 0 && c.Index < len(p.colLeaf) {
			s |= 1 << p.colLeaf[c.Index]
		}
	})
	return s
}

// add places one conjunct (FROM order): above everything if it cannot
// move or reads no relation, on its leaf if it reads one, else among the
// join conditions.
func (p *joinProblem) add(c expr.Expr) {
	if !movable(c) {
		p.top = append(p.top, c)
		return
	}
	rels := p.relsOf(c)
	switch bits.OnesCount64(uint64(rels)) {
	case 0:
		p.top = append(p.top, c)
		return
	case 1:
		l := p.leaves[bits.TrailingZeros64(uint64(rels))]
		local, _ := remapColumns(c, func(i int) int { return i - l.off })
		l.conjs = append(l.conjs, local)
		return
	}
	jc := &joinConj{e: c, rels: rels}
	if f, ok := c.(*expr.FuncCall); ok && f.Name == "=" && len(f.Args) == 2 {
		lr, rr := p.relsOf(f.Args[0]), p.relsOf(f.Args[1])
		if lr != 0 && rr != 0 && lr&rr == 0 {
			jc.eqL, jc.eqR, jc.eqLRels, jc.eqRRels = f.Args[0], f.Args[1], lr, rr
		}
	}
	p.conjs = append(p.conjs, jc)
}

// planLeaf plans inside one leaf and applies its conjuncts (over its own
// columns).
func (b *binder) planLeaf(n Node, conjs []expr.Expr, es *estimator) Node {
	if j, ok := n.(*Join); ok {
		return b.planOuterJoin(j, conjs, es)
	}
	if len(conjs) == 0 {
		return n
	}
	return &Filter{Input: n, Pred: andOf(conjs)}
}

// planOuterJoin plans both sides of a join that is not reordered (an outer
// join, or an inner join with a condition that must stay where it is),
// pushing into a side what only reads that side where that keeps the
// join's result.
func (b *binder) planOuterJoin(j *Join, where []expr.Expr, es *estimator) Node {
	nl := len(j.Left.Columns())
	sideOf := func(c expr.Expr) int {
		s := 0
		walkExpr(c, func(x expr.Expr) {
			if r, ok := x.(*expr.ColumnRef); ok {
				if r.Index < nl {
					s |= 1
				} else {
					s |= 2
				}
			}
		})
		return s
	}
	var toLeft, toRight, above []expr.Expr
	toRightShifted := func(c expr.Expr) bool {
		sh, ok := remapColumns(c, func(i int) int { return i - nl })
		if ok {
			toRight = append(toRight, sh)
		}
		return ok
	}
	// ON conjuncts reading only the nullable side filter that side.
	if j.Cond != nil && j.Kind != InnerJoin && j.Kind != CrossJoin && j.Kind != FullJoin {
		var keep []expr.Expr
		for _, c := range conjuncts(j.Cond) {
			s := sideOf(c)
			switch {
			case movable(c) && s == 2 && j.Kind != RightJoin && toRightShifted(c):
			case movable(c) && s == 1 && j.Kind == RightJoin:
				toLeft = append(toLeft, c)
			default:
				keep = append(keep, c)
			}
		}
		j.Cond = nil
		if len(keep) > 0 {
			j.Cond = andOf(keep)
		}
	}
	// WHERE conjuncts reading only the preserved side filter that side.
	for _, c := range where {
		s := sideOf(c)
		switch {
		case (j.Kind == LeftJoin || j.Kind == InnerJoin || j.Kind == CrossJoin) && s == 1,
			j.Kind == SemiJoin || j.Kind == AntiJoin:
			toLeft = append(toLeft, c)
		case (j.Kind == RightJoin || j.Kind == InnerJoin || j.Kind == CrossJoin) && s == 2 && toRightShifted(c):
		default:
			above = append(above, c)
		}
	}
	var lw, rw expr.Expr
	if len(toLeft) > 0 {
		lw = andOf(toLeft)
	}
	if len(toRight) > 0 {
		rw = andOf(toRight)
	}
	j.Left = b.planJoinTree(j.Left, lw, es)
	j.Right = b.planJoinTree(j.Right, rw, es)
	qualifyJoin(j)
	j.EstRows = es.rowsOf(j)
	if len(above) > 0 {
		return &Filter{Input: j, Pred: andOf(above)}
	}
	return j
}

// joinStep is a node of the chosen join tree: a leaf or the join of two
// steps.
type joinStep struct {
	set         relSet
	leaf        int
	left, right *joinStep
	rows, cost  float64
	tier        int // 1 best: both sides connected and linked; 2 linked; 3 cross product
}

func (p *joinProblem) leafRows(i int) float64 { return p.es.rowsOf(p.leaves[i].node) }

// conjSel is a join conjunct's selectivity: 1/max(ndv) for an equality,
// PostgreSQL's defaults otherwise.
func (p *joinProblem) conjSel(c *joinConj) float64 {
	if c.sel == 0 {
		c.sel = p.es.selectivity(c.e, func(r *expr.ColumnRef) float64 {
			l := p.leaves[p.colLeaf[r.Index]]
			return p.es.ndv(l.node, r.Index-l.off)
		})
		if c.sel <= 0 {
			c.sel = 1e-9
		}
	}
	return c.sel
}

// rowsOf is the estimated size of the join of the leaves in s.
func (p *joinProblem) rowsOf(s relSet) float64 {
	r := 1.0
	for i := range p.leaves {
		if s&(1<<i) != 0 {
			r *= p.leafRows(i)
		}
	}
	for _, c := range p.conjs {
		if s.has(c.rels) {
			r *= p.conjSel(c)
		}
	}
	return clampRows(r)
}

// connected reports whether the conjuncts within s link all of s.
func (p *joinProblem) connected(s relSet) bool {
	if bits.OnesCount64(uint64(s)) <= 1 {
		return true
	}
	reach := s & -s
	for changed := true; changed; {
		changed = false
		for _, c := range p.conjs {
			if s.has(c.rels) && c.rels&reach != 0 && !reach.has(c.rels) {
				reach |= c.rels
				changed = true
			}
		}
	}
	return reach == s
}

func (p *joinProblem) linked(a, z relSet) bool {
	for _, c := range p.conjs {
		if (a | z).has(c.rels) && c.rels&a != 0 && c.rels&z != 0 {
			return true
		}
	}
	return false
}

func (p *joinProblem) hashable(a, z relSet) bool {
	for _, c := range p.conjs {
		if c.eqL != nil && (a.has(c.eqLRels) && z.has(c.eqRRels) || a.has(c.eqRRels) && z.has(c.eqLRels)) {
			return true
		}
	}
	return false
}

// combine prices the join of two steps.
func (p *joinProblem) combine(a, z *joinStep, rows float64, connA, connZ bool) *joinStep {
	tier := 3
	if p.linked(a.set, z.set) {
		tier = 2
		if connA && connZ {
			tier = 1
		}
	}
	work := a.rows * z.rows
	if p.hashable(a.set, z.set) {
		work = a.rows + z.rows
	}
	return &joinStep{set: a.set | z.set, left: a, right: z, rows: rows, tier: tier,
		cost: a.cost + z.cost + work + rows}
}

func better(a, z *joinStep) bool {
	if z == nil {
		return true
	}
	if a.tier != z.tier {
		return a.tier < z.tier
	}
	return a.cost < z.cost
}

// order chooses the join tree.
func (p *joinProblem) order() *joinStep {
	n := len(p.leaves)
	if n <= dpLimit {
		return p.orderDP()
	}
	return p.orderGreedy()
}

func (p *joinProblem) leafStep(i int) *joinStep {
	r := p.leafRows(i)
	return &joinStep{set: 1 << i, leaf: i, rows: r, cost: r, tier: 1}
}

func (p *joinProblem) orderDP() *joinStep {
	n := len(p.leaves)
	full := relSet(1)<<n - 1
	best := make([]*joinStep, full+1)
	conn := make([]bool, full+1)
	for s := relSet(1); s <= full; s++ {
		conn[s] = p.connected(s)
		if bits.OnesCount64(uint64(s)) == 1 {
			best[s] = p.leafStep(bits.TrailingZeros64(uint64(s)))
			continue
		}
		rows := p.rowsOf(s)
		for a := (s - 1) & s; a > 0; a = (a - 1) & s {
			z := s ^ a
			if a < z {
				continue
			}
			st := p.combine(best[a], best[z], rows, conn[a], conn[z])
			if better(st, best[s]) {
				best[s] = st
			}
		}
	}
	return best[full]
}

// orderGreedy joins, step by step, the two linked parts whose join is
// smallest (Fegaras' greedy operator ordering), cross products last.
func (p *joinProblem) orderGreedy() *joinStep {
	var parts []*joinStep
	for i := range p.leaves {
		parts = append(parts, p.leafStep(i))
	}
	for len(parts) > 1 {
		var pick *joinStep
		pi, pj := 0, 1
		for i := range parts {
			for j := i + 1; j < len(parts); j++ {
				st := p.combine(parts[i], parts[j], p.rowsOf(parts[i].set|parts[j].set), true, true)
				if pick == nil || st.tier < pick.tier || st.tier == pick.tier && st.rows < pick.rows {
					pick, pi, pj = st, i, j
				}
			}
		}
		parts[pi] = pick
		parts = append(parts[:pj], parts[pj+1:]...)
	}
	return parts[0]
}

// build turns a join tree into plan nodes; layout[i] is the FROM-order
// column that output column i is.
func (p *joinProblem) build(st *joinStep) (Node, []int) {
	if st.left == nil {
		l := p.leaves[st.leaf]
		layout := make([]int, l.width)
		for i := range layout {
			layout[i] = l.off + i
		}
		return l.node, layout
	}
	a, z := st.left, st.right
	// The right input is the one built into memory: the smaller one.
	if a.rows < z.rows || a.rows == z.rows && lowestLeaf(z.set) < lowestLeaf(a.set) {
		a, z = z, a
	}
	ln, ll := p.build(a)
	rn, rl := p.build(z)
	j := &Join{Kind: CrossJoin, Left: ln, Right: rn}
	pos := make(map[int]int, len(ll)+len(rl))
	for i, g := range ll {
		pos[g] = i
	}
	for i, g := range rl {
		pos[g] = len(ll) + i
	}
	nl := len(ll)
	toPair := func(e expr.Expr) expr.Expr {
		return mapColumnRefs(e, func(c *expr.ColumnRef) expr.Expr {
			return &expr.ColumnRef{Index: pos[c.Index], T: c.T, Name: p.qualified(c)}
		})
	}
	var rest []expr.Expr
	for _, c := range p.conjs {
		if !st.set.has(c.rels) || a.set.has(c.rels) || z.set.has(c.rels) {
			continue
		}
		if c.eqL != nil {
			lk, rk, lr, rr := c.eqL, c.eqR, c.eqLRels, c.eqRRels
			if z.set.has(lr) && a.set.has(rr) {
				lk, rk, lr, rr = rk, lk, rr, lr
			}
			if a.set.has(lr) && z.set.has(rr) {
				if lx, rx, ok := p.b.hashKeyPair(toPair(lk), toPair(rk), nl); ok {
					j.LeftKeys = append(j.LeftKeys, lx)
					j.RightKeys = append(j.RightKeys, rx)
					continue
				}
			}
		}
		rest = append(rest, toPair(c.e))
	}
	if len(j.LeftKeys) > 0 || len(rest) > 0 {
		j.Kind = InnerJoin
	}
	if len(rest) > 0 {
		j.Cond = andOf(rest)
	}
	p.es.rows[j] = st.rows
	j.EstRows = st.rows
	return j, append(append([]int{}, ll...), rl...)
}

// qualified names a column of a join condition (FROM order) with its
// relation's alias, so that EXPLAIN tells pkc.oid from fkc.oid.
func (p *joinProblem) qualified(c *expr.ColumnRef) string {
	l := p.leaves[p.colLeaf[c.Index]]
	return qualifiedName(l.node, c.Index-l.off, c.Name)
}

// qualifiedName is name prefixed with the alias of the relation column i
// of n comes from, if one can be told.
func qualifiedName(n Node, i int, name string) string {
	if name == "" || strings.Contains(name, ".") {
		return name
	}
	for {
		switch x := n.(type) {
		case *Filter:
			n = x.Input
			continue
		case *Sort:
			n = x.Input
			continue
		case *Limit:
			n = x.Input
			continue
		case *Project:
			if i < len(x.Exprs) {
				if c, ok := x.Exprs[i].(*expr.ColumnRef); ok {
					n, i = x.Input, c.Index
					continue
				}
			}
		case *Join:
			nl := len(x.Left.Columns())
			if i < nl || x.Kind == SemiJoin || x.Kind == AntiJoin {
				n = x.Left
			} else {
				n, i = x.Right, i-nl
			}
			continue
		case *Scan:
			if x.Alias != "" {
				return x.Alias + "." + name
			}
		}
		return name
	}
}

// qualifyJoin names the columns of an outer join's keys and condition
// with their relations' aliases, for EXPLAIN.
func qualifyJoin(j *Join) {
	nl := len(j.Left.Columns())
	side := func(n Node, off int) func(*expr.ColumnRef) expr.Expr {
		return func(c *expr.ColumnRef) expr.Expr {
			return &expr.ColumnRef{Index: c.Index, T: c.T, Name: qualifiedName(n, c.Index-off, c.Name)}
		}
	}
	for i := range j.LeftKeys {
		j.LeftKeys[i] = mapColumnRefs(j.LeftKeys[i], side(j.Left, 0))
		j.RightKeys[i] = mapColumnRefs(j.RightKeys[i], side(j.Right, 0))
	}
	if j.Cond != nil {
		j.Cond = mapColumnRefs(j.Cond, func(c *expr.ColumnRef) expr.Expr {
			if c.Index < nl {
				return side(j.Left, 0)(c)
			}
			return side(j.Right, nl)(c)
		})
	}
}

func lowestLeaf(s relSet) int { return bits.TrailingZeros64(uint64(s)) }

// hashKeyPair makes l = r (over a join's left-then-right columns) a hash
// key pair: both sides of one type, the right one over the right input's
// columns.
func (b *binder) hashKeyPair(l, r expr.Expr, nl int) (expr.Expr, expr.Expr, bool) {
	if l.Type().OID != r.Type().OID {
		t, err := expr.CommonType([]types.T{l.Type(), r.Type()})
		if err != nil {
			return nil, nil, false
		}
		if l, err = b.coerce(l, t, false, -1); err != nil {
			return nil, nil, false
		}
		if r, err = b.coerce(r, t, false, -1); err != nil {
			return nil, nil, false
		}
	}
	r, ok := remapColumns(r, func(i int) int { return i - nl })
	return l, r, ok
}
