package planner

import (
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// No node kind is named by its Go type in a message.
func TestNodeNamesAreSQL(t *testing.T) {
	od := (&pg_query.Node{}).ProtoReflect().Descriptor().Oneofs().ByName("node")
	for i := 0; i < od.Fields().Len(); i++ {
		fd := od.Fields().Get(i)
		n := &pg_query.Node{}
		n.ProtoReflect().Set(fd, protoreflect.ValueOfMessage(n.ProtoReflect().NewField(fd).Message()))
		name := NodeName(n)
		if name == "" || strings.ContainsAny(name, "*_") && !strings.Contains(name, "JSON_") && !strings.Contains(name, "MERGE_") || strings.Contains(name, "pg_query") || strings.Contains(name, "Node") {
			t.Errorf("%s is named %q", fd.Message().Name(), name)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"Node_CreateTableAsStmt", "CREATE TABLE AS"},
		{"Node_AlterDefaultPrivilegesStmt", "ALTER DEFAULT PRIVILEGES"},
		{"Node_NamedArgExpr", "named function argument (name => value)"},
		{"Node_IndexStmt", "CREATE INDEX"},
	} {
		if got := typeSQLName(tc.in); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.in, got, tc.want)
		}
	}
}
