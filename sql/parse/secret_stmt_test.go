package parse

import (
	"strings"
	"testing"
)

func TestSecretStatements(t *testing.T) {
	st, err := ParseStreaming("CREATE SECRET IF NOT EXISTS pg_pass AS 'it''s'")
	if err != nil || st == nil || st.Kind != CreateSecret || !st.IfNotExists || st.Name != "pg_pass" || st.Secret.Value != "it's" {
		t.Fatalf("CREATE SECRET: %+v %v", st, err)
	}
	st, err = ParseStreaming("DROP SECRET IF EXISTS a, b")
	if err != nil || st.Kind != DropSecret || !st.IfExists || len(st.Names) != 2 {
		t.Fatalf("DROP SECRET: %+v %v", st, err)
	}
	if st, err = ParseStreaming("SHOW SECRETS"); err != nil || st.Kind != ShowSecrets {
		t.Fatalf("SHOW SECRETS: %+v %v", st, err)
	}
	for _, bad := range []string{"CREATE SECRET s", "CREATE SECRET s AS 1", "CREATE SECRET a.s AS 'x'", "SHOW SECRETS x", "CREATE SECRET s AS 'x' y", "CREATE SECRET s 'hunter2'"} {
		if _, err := ParseStreaming(bad); err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: no error", bad)
		}
	}
}
