package expr

import (
	"strings"
	"sync"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Databricks' regular expressions are Java's (java.util.regex); weir
// matches with Go's RE2, whose syntax is the same for nearly everything
// pipelines write. javaRegexToRE2 rewrites the Java spellings RE2 lacks
// and that have an exact RE2 equivalent — the POSIX classes \p{Alpha},
// \p{Digit}, ... (and \P{...}), and the java.lang.Character classes
// \p{javaLowerCase}, ... — and rejects (2201B) the Java constructs RE2
// would silently read differently: class union and intersection
// ([a-z[0-9]], [a-z&&[^aeiou]]).
// Constructs RE2 does not know at all (lookaround, backreferences,
// possessive quantifiers, atomic groups) are RE2's own compile errors,
// also 2201B: never a different match.

var javaPosixClasses = map[string]string{
	"Lower": "lower", "Upper": "upper", "ASCII": "ascii", "Alpha": "alpha", "Digit": "digit",
	"Alnum": "alnum", "Punct": "punct", "Graph": "graph", "Print": "print", "Blank": "blank",
	"Cntrl": "cntrl", "XDigit": "xdigit", "Space": "space",
}

var javaCharacterClasses = map[string]string{
	"javaLowerCase": `\p{Ll}`, "javaUpperCase": `\p{Lu}`, "javaWhitespace": `\s`, "javaMirrored": "",
	"IsAlphabetic": `\pL`, "IsLetter": `\pL`, "IsDigit": `\p{Nd}`, "IsUppercase": `\p{Lu}`, "IsLowercase": `\p{Ll}`,
	"IsWhite_Space": `\s`, "IsPunctuation": `\pP`,
}

var javaRegexCache sync.Map // Java pattern -> RE2 pattern

func errJavaRegex(why string) error {
	return sqlerr.New(sqlerr.InvalidRegularExpression, "invalid regular expression: %s", why)
}

// javaRegexToRE2 is the RE2 pattern of a Java one (cached).
func javaRegexToRE2(p string) (string, error) {
	if !strings.Contains(p, `\p`) && !strings.Contains(p, `\P`) && !strings.Contains(p, "[") {
		return p, nil
	}
	if v, ok := javaRegexCache.Load(p); ok {
		return v.(string), nil
	}
	var b strings.Builder
	inClass := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			next := p[i+1]
			if next == 'Q' {
				// \Q...\E quotes: copied as is.
				end := strings.Index(p[i:], `\E`)
				if end < 0 {
					b.WriteString(p[i:])
					i = len(p)
					continue
				}
				b.WriteString(p[i : i+end+2])
				i += end + 1
				continue
			}
			if (next == 'p' || next == 'P') && i+2 < len(p) && p[i+2] == '{' {
				end := strings.IndexByte(p[i:], '}')
				if end < 0 {
					return "", errJavaRegex("missing } in a \\p{...} class")
				}
				name := p[i+3 : i+end]
				neg := next == 'P'
				if posix, ok := javaPosixClasses[name]; ok {
					cls := "[:" + posix + ":]"
					if neg {
						cls = "[:^" + posix + ":]"
					}
					if inClass == 0 {
						cls = "[" + cls + "]"
					}
					b.WriteString(cls)
					i += end
					continue
				}
				if re2, ok := javaCharacterClasses[name]; ok {
					if re2 == "" {
						return "", errJavaRegex("\\p{" + name + "} is not supported")
					}
					if neg {
						switch {
						case strings.HasPrefix(re2, `\p`):
							re2 = `\P` + re2[2:]
						case re2 == `\s`:
							re2 = `\S`
						}
					}
					b.WriteString(re2)
					i += end
					continue
				}
			}
			b.WriteByte(c)
			b.WriteByte(next)
			i++
		case c == '[':
			if inClass > 0 {
				return "", errJavaRegex("nested character classes ([a-z[0-9]]) are not supported")
			}
			inClass++
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				// A leading ] is a literal in both.
				b.WriteByte(']')
				i++
			}
		case c == ']' && inClass > 0:
			inClass--
			b.WriteByte(c)
		case c == '&' && inClass > 0 && i+1 < len(p) && p[i+1] == '&':
			return "", errJavaRegex("class intersection (&&) is not supported")
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	javaRegexCache.Store(p, out)
	return out, nil
}

// javaRegexMemo is regexMemo over Java patterns: the last pattern text
// and its RE2 form.
type javaRegexMemo struct {
	regexMemo
	java, re2 string
	have      bool
}

func (m *javaRegexMemo) getJava(pattern string) error {
	if !m.have || pattern != m.java {
		re2, err := javaRegexToRE2(pattern)
		if err != nil {
			return err
		}
		m.java, m.re2, m.have = pattern, re2, true
	}
	return m.get(m.re2, "", false)
}
