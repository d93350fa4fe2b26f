package parse

import "testing"

func TestSparkCalls(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT current_timestamp() > now() - interval '1 day', current_date()", "SELECT current_timestamp   > now() - interval '1 day', current_date  "},
		{"SELECT array(1, 2, 3)", "SELECT array[1, 2, 3]"},
		{"SELECT size(array(array_max(array(1, 2)), 3))", "SELECT size(array[array_max(array[1, 2]), 3])"},
		{"SELECT array(SELECT 1)", "SELECT array(SELECT 1)"},
		{"SELECT 'current_date()', \"array\"(1)", "SELECT 'current_date()', \"array\"(1)"},
		{`SELECT regexp_extract('a12', r'\d+', 0), r 'x'`, `SELECT regexp_extract('a12',  '\d+', 0), r 'x'`},
	}
	for _, c := range cases {
		got, _ := sparkCalls(c.in)
		if got != c.want {
			t.Errorf("sparkCalls(%q) = %q, want %q", c.in, got, c.want)
		}
		if len(got) != len(c.in) {
			t.Errorf("sparkCalls(%q) moved bytes", c.in)
		}
	}
}
