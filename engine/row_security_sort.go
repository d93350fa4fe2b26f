package engine

import (
	"sort"

	"github.com/weir-sql/weir/catalog"
)

// sortedPolicies returns rel's policies by name: PostgreSQL applies them
// in name order (RelationBuildRowSecurity sorts them) whatever the order
// they were created in.
func sortedPolicies(rel *catalog.Relation) []catalog.Policy {
	out := append([]catalog.Policy(nil), rel.Policies...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
