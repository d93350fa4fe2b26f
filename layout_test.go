package weir_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// allowedImports is the layout of ../shared/design.md: which of weir's own
// packages each package may import. External modules are not restricted.
// sql/sqlerr is a leaf (errors with SQLSTATEs) every layer may use.
var allowedImports = map[string][]string{
	"cmd":        {"*"},
	"engine":     {"*"},
	"wire":       {"sql/types", "sql/sqlerr"},
	"sql/sqlerr": {},
	"sql/types":  {"sql/sqlerr"},
	// COPY text/CSV/binary decoding, under sql/types so that both wire
	// (which may import only sql/types) and connector's file sources can
	// use it
	"sql/types/copyformat": {"sql/types", "sql/sqlerr"},
	"sql/parse":            {"sql/types", "sql/sqlerr"},
	"sql/expr":             {"sql/types", "sql/sqlerr"},
	"planner":              {"sql/", "planner"},
	"exec":                 {"sql/", "planner", "state", "connector", "exec"},
	"connector":            {"sql/types", "sql/sqlerr", "state", "connector"},
	"state":                {"sql/sqlerr"},
	"checkpoint":           {"state", "sql/sqlerr"},
	"catalog":              {"sql/types", "sql/sqlerr", "state", "catalog"},
	"testdata":             {},
	// test support: a throwaway PostgreSQL as the oracle
	"internal/pgtest": {},
	// test support: the sqllogictest runner
	"internal/slt": {},
	// test and benchmark support: the client catalog queries
	"internal/catalogqueries": {},
	// crash points for tests, compiled into every binary, armed by env
	"internal/failpoint": {},
	// test and benchmark support: the Nexmark query files
	"internal/nexmarkq": {},
}

const module = "github.com/weir-sql/weir"

func ruleFor(pkg string) ([]string, bool) {
	best := ""
	for k := range allowedImports {
		if (pkg == k || strings.HasPrefix(pkg, k+"/")) && len(k) > len(best) {
			best = k
		}
	}
	r, ok := allowedImports[best]
	return r, ok
}

func TestLayoutImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	// The packages of the layout that hold a contract must exist: the
	// Source and Sink contracts, and the checkpoint.
	missing := map[string]bool{"connector": true, "checkpoint": true}
	defer func() {
		for p := range missing {
			t.Errorf("package %s of design.md's layout does not exist", p)
		}
	}()
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "" {
			continue
		}
		delete(missing, rel)
		rules, ok := ruleFor(rel)
		if !ok {
			t.Errorf("package %s is not in the layout of design.md", rel)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if !allowed(rel, dep, rules) {
				t.Errorf("%s imports %s, which design.md does not allow", rel, dep)
			}
		}
	}
}

func allowed(pkg, dep string, rules []string) bool {
	for _, r := range rules {
		switch {
		case r == "*":
			return true
		case strings.HasSuffix(r, "/") && strings.HasPrefix(dep, r):
			return true
		case dep == r || strings.HasPrefix(dep, r+"/"):
			return true
		}
	}
	return false
}
