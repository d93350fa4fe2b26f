package engine

import (
	"encoding/json"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// A policy whose subquery reads its own table — directly, or through the
// policies of the tables it reads — would expand without end. PostgreSQL
// refuses the query (42P17); weir finds the cycle before binding, since
// the binder binds each filter after ScanSecurity has returned it.

// checkPolicyRecursion fails when one of filters (rel's, for u) reads a
// relation of active, rel's own included, or one whose filters do.
func (v *catalogView) checkPolicyRecursion(rel *catalog.Relation, filters []string, u rlsReader, active map[uint32]bool) error {
	for _, f := range filters {
		if !strings.Contains(strings.ToLower(f), "select") {
			continue
		}
		for _, rv := range policyRangeVars(f) {
			read, err := v.s.eng.cat.LookupRelation(v.s.searchPath(), rv[0], rv[1])
			if err != nil {
				continue // the binder reports it
			}
			if active[read.OID] {
				return sqlerr.New("42P17", "infinite recursion detected in policy for relation \"%s\"", read.Name)
			}
			on, err := v.s.rowSecurityApplies(read, u)
			if err != nil || !on {
				continue
			}
			active[read.OID] = true
			err = v.checkPolicyRecursion(read, v.s.selectFilters(read, u), u, active)
			delete(active, read.OID)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// policyRangeVars lists the relations (schema, name) an expression's
// subqueries name.
func policyRangeVars(sql string) [][2]string {
	text, err := pg_query.ParseToJSON("SELECT " + sql)
	if err != nil {
		return nil
	}
	var tree any
	if json.Unmarshal([]byte(text), &tree) != nil {
		return nil
	}
	var out [][2]string
	var walk func(n any)
	walk = func(n any) {
		switch x := n.(type) {
		case map[string]any:
			if rv, ok := x["RangeVar"].(map[string]any); ok {
				schema, _ := rv["schemaname"].(string)
				name, _ := rv["relname"].(string)
				out = append(out, [2]string{schema, name})
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(tree)
	return out
}
