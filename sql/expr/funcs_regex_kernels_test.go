package expr

import (
	"math/rand"
	"testing"
)

// TestRegexRequiredLiteral: the literal prefilter never rejects a string
// the expression matches, and finds the literal of Nexmark q21's pattern.
func TestRegexRequiredLiteral(t *testing.T) {
	if got := requiredLiteral("(&|^)channel_id=([^&]*)", false); got != "channel_id=" {
		t.Errorf("requiredLiteral(q21) = %q", got)
	}
	for _, p := range []string{"a|bc", "(?i)abc", "x*", "(ab)?c", "a{0}bc"} {
		if lit := requiredLiteral(p, false); lit == "ab" || lit == "abc" || lit == "x" || lit == "a" {
			t.Errorf("requiredLiteral(%q) = %q: not required", p, lit)
		}
	}
	patterns := []string{"(&|^)channel_id=([^&]*)", "com/([a-z]+)", "ab+c", "(a)(b)c", "^ab|cd$", "a.c", "(?i)AbC", "x(ab|cd)y", "(ab)*c", "é+ü", "a{2}b", "[ab]c(d)"}
	r := rand.New(rand.NewSource(7))
	alphabet := []string{"a", "b", "c", "d", "x", "y", "&", "=", "/", "é", "ü", "channel_id=", "com/", "A", "B", "C"}
	for _, p := range patterns {
		var m regexMemo
		if err := m.get(p, "", false); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3000; i++ {
			s := ""
			for k := r.Intn(8); k > 0; k-- {
				s += alphabet[r.Intn(len(alphabet))]
			}
			if m.cannotMatch(s) && m.re.MatchString(s) {
				t.Errorf("%q: literal %q rejects %q, which matches", p, m.lit, s)
			}
		}
	}
}
