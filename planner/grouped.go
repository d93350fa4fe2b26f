package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// containsSubLink reports whether a parse tree holds a subquery.
func containsSubLink(n *pg_query.Node) bool {
	found := false
	walkParse(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if _, ok := m.Interface().(*pg_query.SubLink); ok {
			found = true
		}
		return !found
	})
	return found
}
