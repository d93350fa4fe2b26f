package parse

import "testing"

func TestTryCasts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT try_cast('a' AS INT)", "SELECT trycast(('a'):: INT)"},
		{"SELECT try_cast(a + b AS bigint), try_cast(x AS date) FROM t", "SELECT trycast((a + b):: bigint), trycast((x):: date) FROM t"},
		{"SELECT TRY_CAST(f(a, CAST(b AS int)) AS text)", "SELECT trycast((f(a, CAST(b AS int))):: text)"},
		{"SELECT try_cast(a AS int) AS x", "SELECT trycast((a):: int) AS x"},
	} {
		got, ok := tryCasts(tc.in)
		if !ok || got != tc.want {
			t.Errorf("tryCasts(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
		if len(got) != len(tc.in) {
			t.Errorf("tryCasts(%q) moved positions: %d bytes, was %d", tc.in, len(got), len(tc.in))
		}
	}
	if _, ok := tryCasts("SELECT cast(a AS int)"); ok {
		t.Error("CAST is PostgreSQL's: left as it is")
	}
}
