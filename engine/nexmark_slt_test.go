package engine_test

import (
	"context"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/slt"
)

// The Nexmark suite as a sqllogictest file (testdata/weir/nexmark.slt),
// which TestSLT runs with the other files and without PostgreSQL. The
// suite writes it (-nexmark.slt) from the run it checks: the tables, the
// streaming tables, the INSERTs of the generated events, and for each
// query a digest of PostgreSQL's batch result over the same rows — its
// row count and the md5 of its rows' text in order — which the streaming
// table's rows must give once caught up:
//
//	go test ./engine -run TestNexmarkSuite -nexmark.events=10000 -nexmark.slt=../testdata/weir/nexmark.slt
var nexmarkSLT = flag.String("nexmark.slt", "", "TestNexmarkSuite: write the run as a sqllogictest file with PostgreSQL's results (e.g. ../testdata/weir/nexmark.slt)")

// nexmarkSLTWriter collects the suite's statements and expected digests.
type nexmarkSLTWriter struct {
	recs []slt.Record
	outs []slt.Outcome
}

func (s *nexmarkSLTWriter) statement(sql string) {
	if s == nil {
		return
	}
	s.recs = append(s.recs, slt.Record{Kind: "statement ok", SQL: sql})
	s.outs = append(s.outs, slt.Outcome{})
}

// digestSQL is the digest of rel's rows (cols columns): their count and
// the md5 of their text, NULLs spelled out, sorted.
func digestSQL(rel string, cols int) string {
	names := make([]string, cols)
	parts := make([]string, cols)
	for i := range names {
		names[i] = "c" + strconv.Itoa(i+1)
		parts[i] = "coalesce(" + names[i] + "::text, 'NULL')"
	}
	row := "concat_ws('|', " + strings.Join(parts, ", ") + ")"
	return "SELECT count(*), coalesce(md5(string_agg(" + row + ", E'\\n' ORDER BY " + row + ")), '') FROM " + rel + " AS t(" + strings.Join(names, ", ") + ")"
}

// query adds the check of streaming table name against PostgreSQL's
// digest of the batch form.
func (s *nexmarkSLTWriter) query(t *testing.T, pg *pgx.Conn, name, batch string, cols int) {
	if s == nil {
		return
	}
	want, err := slt.Exec(context.Background(), pg, slt.Record{Kind: "query", SQL: digestSQL("("+batch+")", cols)})
	if err != nil || want.Err != nil {
		t.Fatalf("%s: PostgreSQL's digest: %v %v", name, err, want.Err)
	}
	s.recs = append(s.recs, slt.Record{Kind: "query", Directive: "query IT retry", SQL: digestSQL(name, cols)})
	s.outs = append(s.outs, want)
}

func (s *nexmarkSLTWriter) write(t *testing.T, path string, events int64, batches int) {
	if s == nil {
		return
	}
	head := "# The Nexmark suite (engine/nexmark_suite_test.go) over " + strconv.FormatInt(events, 10) + " events in " +
		strconv.Itoa(batches) + " micro-batches: each\n" +
		"# streaming table's rows must give the digest (row count, md5 of the\n" +
		"# sorted rows' text) of PostgreSQL's batch result over the same rows.\n" +
		"# Written by the suite; do not edit:\n" +
		"#   go test ./engine -run TestNexmarkSuite -nexmark.events=" + strconv.FormatInt(events, 10) +
		" -nexmark.batches=" + strconv.Itoa(batches) + " -nexmark.slt=../testdata/weir/nexmark.slt\n\n"
	if err := os.WriteFile(path, []byte(head+slt.Render(s.recs, s.outs)), 0o644); err != nil {
		t.Fatal(err)
	}
}
