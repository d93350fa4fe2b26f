package catalog

import (
	"bytes"
	"testing"
)

func TestRekeySecrets(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	c := openCatalog(t, st)
	oldKey, newKey, wrong := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	for _, n := range []string{"a", "b"} {
		if err := c.CreateSecret(n, 0, oldKey, "value-"+n, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.RekeySecrets(wrong, newKey); err == nil {
		t.Fatal("a wrong old key must fail the rotation")
	}
	if v, err := c.SecretValue("a", oldKey); err != nil || v != "value-a" {
		t.Fatalf("after a failed rotation the old key still opens: %q %v", v, err)
	}
	if n, err := c.RekeySecrets(oldKey, newKey); err != nil || n != 2 {
		t.Fatalf("rekey: %d %v", n, err)
	}
	st.Close()
	st = openStore(t, dir)
	defer st.Close()
	c = openCatalog(t, st)
	for _, n := range []string{"a", "b"} {
		if v, err := c.SecretValue(n, newKey); err != nil || v != "value-"+n {
			t.Fatalf("%s with the new key: %q %v", n, v, err)
		}
		if _, err := c.SecretValue(n, oldKey); err == nil {
			t.Fatalf("%s still opens with the old key", n)
		}
	}
}
