package engine_test

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/engine"
)

// TestSecretUsageInOptions: secret('name') in a connector's options needs USAGE on
// the secret unless the user owns it: 42501 "permission denied for
// secret name" until it is granted (set here through the catalog: GRANT
// USAGE ON SECRET comes from elsewhere); an unknown secret stays 42704.
func TestSecretUsageInOptions(t *testing.T) {
	key := make([]byte, 32)
	rand.Read(key)
	root := t.TempDir()
	writeFile(t, root, "landing/a.json", jsonEvents(0, 5))
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}, SecretKey: key})
	su := srv.connect(t)
	for _, q := range []string{
		"CREATE SECRET landing_path AS 'landing'",
		"CREATE ROLE srcuser LOGIN",
		"GRANT pg_read_server_files TO srcuser",
		"CREATE SCHEMA srcs AUTHORIZATION srcuser",
	} {
		mustExec(t, su, q)
	}
	u, err := connectAs(t, srv.url(), "srcuser", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	create := "CREATE SOURCE srcs.ev WITH (connector = 'files', path = secret('landing_path'), format = 'json')"
	if _, err := u.Exec(ctx, create); errOutcome(err) != "42501 permission denied for secret landing_path" {
		t.Errorf("secret without USAGE: %s", errOutcome(err))
	}
	if _, err := u.Exec(ctx, "CREATE SOURCE srcs.e2 WITH (connector = 'files', path = secret('nope'), format = 'json')"); sqlState(err) != "42704" {
		t.Errorf("unknown secret: %s, want 42704", errOutcome(err))
	}
	r, _ := srv.eng.Catalog().Role("srcuser")
	if _, err := srv.eng.Catalog().UpdateSecret("landing_path", func(s *catalog.Secret) error {
		s.ACL = catalog.ACL{{Grantee: s.Owner, Grantor: s.Owner, Privs: catalog.PrivUsage}, {Grantee: r.OID, Grantor: s.Owner, Privs: catalog.PrivUsage}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, u, create)
	if got := textRows(t, u, "SELECT count(*) FROM srcs.ev"); len(got) != 1 || got[0] != "5" {
		t.Errorf("the source with the granted secret: %q", got)
	}
}
