package files

import (
	"errors"
	"path/filepath"
	"strings"
)

// Globs, as Databricks' read_files takes them in path and pathGlobFilter:
// ? * [abc] [a-z] [^a] as filepath.Match has them, and {ab,cd} alternatives, nested. A glob in path matches whole
// path components (Databricks' strict globber): /a/*/c matches /a/b/c and
// everything under it, never /a/b/x/c.

// hasGlob reports whether s holds glob syntax.
func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[{") }

// expandBraces returns the alternatives of s's {a,b} groups ("x{a,b}y" →
// "xay", "xby"); s without braces is its only alternative.
func expandBraces(s string) ([]string, error) {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		if strings.IndexByte(s, '}') >= 0 {
			return nil, errors.New("unbalanced } in glob")
		}
		return []string{s}, nil
	}
	depth, close := 0, -1
	var commas []int
	for i := open; i < len(s) && close < 0; i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				close = i
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	if close < 0 {
		return nil, errors.New("unbalanced { in glob")
	}
	var parts []string
	prev := open + 1
	for _, c := range commas {
		parts = append(parts, s[prev:c])
		prev = c + 1
	}
	parts = append(parts, s[prev:close])
	rest, err := expandBraces(s[close+1:])
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range parts {
		inner, err := expandBraces(p)
		if err != nil {
			return nil, err
		}
		for _, in := range inner {
			for _, r := range rest {
				out = append(out, s[:open]+in+r)
			}
		}
	}
	return out, nil
}

// nameGlob is a compiled glob on one name (pathGlobFilter).
type nameGlob []string

func compileNameGlob(g string) (nameGlob, error) {
	alts, err := expandBraces(g)
	if err != nil {
		return nil, err
	}
	for _, a := range alts {
		if _, err := filepath.Match(a, ""); err != nil {
			return nil, errors.New("malformed glob " + a)
		}
	}
	return alts, nil
}

func (g nameGlob) match(name string) bool {
	for _, a := range g {
		if ok, _ := filepath.Match(a, name); ok {
			return true
		}
	}
	return false
}

func checkGlob(g string) error { _, err := compileNameGlob(g); return err }

// pathSpec is a path option split into where listing starts and what the
// paths under it must match.
type pathSpec struct {
	base string // absolute: the folder (or the one file) listing starts at
	// alts are the glob's alternatives, each as path components relative
	// to base; nil without a glob (everything under base).
	alts [][]string
}

// specOf splits p at its first component holding glob syntax.
func specOf(p string) (pathSpec, error) {
	p = filepath.Clean(p)
	if !hasGlob(p) {
		return pathSpec{base: p}, nil
	}
	comps := strings.Split(p, string(filepath.Separator))
	i := 0
	for i < len(comps) && !hasGlob(comps[i]) {
		i++
	}
	base := strings.Join(comps[:i], string(filepath.Separator))
	if base == "" {
		base = string(filepath.Separator)
	}
	alts, err := expandBraces(strings.Join(comps[i:], "/"))
	if err != nil {
		return pathSpec{}, err
	}
	sp := pathSpec{base: base}
	for _, a := range alts {
		parts := strings.Split(a, "/")
		for _, c := range parts {
			if _, err := filepath.Match(c, ""); err != nil {
				return pathSpec{}, errors.New("malformed glob " + a)
			}
		}
		sp.alts = append(sp.alts, parts)
	}
	return sp, nil
}

// matchState says where rel (components under base) stands against the
// glob: full (rel matches a whole alternative, or lies under one), or
// prefix (rel may lead to a match: descend into it).
func (sp pathSpec) matchState(rel []string) (full, prefix bool) {
	if sp.alts == nil {
		return true, true
	}
	for _, alt := range sp.alts {
		n := min(len(alt), len(rel))
		ok := true
		for i := 0; i < n; i++ {
			if m, _ := filepath.Match(alt[i], rel[i]); !m {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if len(rel) >= len(alt) {
			full = true
		} else {
			prefix = true
		}
	}
	return full, full || prefix
}
