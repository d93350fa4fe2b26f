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
	// dialect.md's WITH (value = …) and RisingWave's WITH (backend = 'meta') AS ….
	for sql, want := range map[string]string{
		"CREATE SECRET shop_pw WITH (value = 's3cret')":             "s3cret",
		"CREATE SECRET shop_pw WITH (backend = 'meta') AS 's3cret'": "s3cret",
	} {
		st, err := ParseStreaming(sql)
		if err != nil || st.Kind != CreateSecret || st.Name != "shop_pw" || st.Secret.Value != want || len(st.Options) != 0 {
			t.Errorf("%s: %+v %v", sql, st, err)
		}
	}
	for _, bad := range []string{"CREATE SECRET s", "CREATE SECRET s AS 1", "CREATE SECRET a.s AS 'x'", "SHOW SECRETS x", "CREATE SECRET s AS 'x' y", "CREATE SECRET s 'hunter2'",
		"CREATE SECRET s WITH (value = 'hunter2') AS 'hunter2'", "CREATE SECRET s WITH (backend = 'vault') AS 'hunter2'", "CREATE SECRET s WITH (valu = 'hunter2')", "CREATE SECRET s WITH (value = 'hunter2'"} {
		if _, err := ParseStreaming(bad); err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: no error", bad)
		}
	}
}
