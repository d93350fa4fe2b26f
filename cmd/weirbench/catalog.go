package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/weir-sql/weir/internal/catalogqueries"
)

// runCatalog times the catalog queries that pgjdbc (DBeaver, DataGrip,
// Metabase), SQLAlchemy 1.4's inspector and psql's \d send, as listed in
// testdata/clients/catalog_queries.sql, on weir and on PostgreSQL 15 each
// holding the same n tables (a few columns and a primary key each). Runs
// are interleaved; the report gives the median per query and the
// weir/PostgreSQL ratio, and replaces the catalog section of
// docs/benchmarks.md (or c.doc).
func runCatalog(c config, n int) error {
	ctx := context.Background()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	queries, err := catalogqueries.Read(filepath.Join(root, "testdata", "clients", "catalog_queries.sql"))
	if err != nil {
		return err
	}
	t0 := time.Now()
	servers, err := startServerPair(root, "weirbench-catalog-")
	if err != nil {
		return err
	}
	defer servers.stop()
	targets := servers.targets()
	oids := map[string]uint32{}
	for _, t := range targets {
		if t.conn, err = connect(t.url); err != nil {
			return fmt.Errorf("connect %s: %w", t.name, err)
		}
		defer t.conn.Close(ctx)
		logf("creating %d tables on %s", n, t.name)
		start := time.Now()
		var batch []string
		for i := 0; i < n; i++ {
			batch = append(batch, fmt.Sprintf("CREATE TABLE t%04d (id bigint PRIMARY KEY, name text NOT NULL, amount numeric(10,2), ts timestamptz)", i))
			if len(batch) == 100 || i == n-1 {
				if _, err := t.conn.Exec(ctx, strings.Join(batch, ";\n")); err != nil {
					return fmt.Errorf("%s: %w", t.name, err)
				}
				batch = batch[:0]
			}
		}
		logf("%s: %d tables in %v", t.name, n, time.Since(start).Round(time.Millisecond))
		var oid uint32
		if err := t.conn.QueryRow(ctx, "SELECT 't0500'::regclass::oid").Scan(&oid); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		oids[t.name] = oid
	}
	if _, err := targets[1].conn.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return err
	}
	var pgVersion string
	targets[1].conn.QueryRow(ctx, "SHOW server_version").Scan(&pgVersion)

	const perRun = 5 // queries per run; a run's time is their mean
	type result struct {
		q          catalogqueries.Query
		s          *sample
		rows       [2]int
		err        string
		weirErrMsg string
	}
	var results []*result
	for _, q := range queries {
		r := &result{q: q, s: &sample{name: q.Name, unit: "s"}}
		results = append(results, r)
		for k, t := range targets {
			sql, args := q.Fill(oids[t.name])
			qctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			rows, err := catalogqueries.CountRows(qctx, t.conn, sql, args) // warm-up, and the row count
			cancel()
			if err != nil {
				r.err = fmt.Sprintf("%s: %v", t.name, err)
				break
			}
			r.rows[k] = rows
		}
		if r.err != "" {
			logf("%s: %s", q.Name, r.err)
			continue
		}
		err := interleave(r.s, c.repeat, targets, func(t *target) (float64, error) {
			sql, args := q.Fill(oids[t.name])
			start := time.Now()
			for i := 0; i < perRun; i++ {
				if _, err := catalogqueries.CountRows(ctx, t.conn, sql, args); err != nil {
					return 0, err
				}
			}
			return time.Since(start).Seconds() / perRun, nil
		})
		if err != nil {
			r.err = err.Error()
		}
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "## Catalog queries on %d tables (run of %s)\n\n", n, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&sb, "- Machine: %d CPUs, %s/%s, %s, %s; PostgreSQL %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, goVersion(), cpuModel(), pgVersion)
	fmt.Fprintf(&sb, "- Command: `go run ./cmd/weirbench -catalog %d` (%d interleaved runs, a run's time = mean of %d executions, extended protocol, all rows read); whole run %s\n",
		n, c.repeat, perRun, time.Since(t0).Round(time.Second))
	fmt.Fprintf(&sb, "- Each server holds the same %d tables `t0000`…, each `(id bigint PRIMARY KEY, name text NOT NULL, amount numeric(10,2), ts timestamptz)`; the queries inspect `t0500` (and `t0501`). PostgreSQL was `VACUUM ANALYZE`d. The SQL is `testdata/clients/catalog_queries.sql`: pgjdbc's with bound parameters, SQLAlchemy's and psql's with literals, as they send them.\n\n", n)
	sb.WriteString("| query | rows (weir / pg) | weir median | pg median | weir best | pg best | ratio weir/pg (median) |\n")
	sb.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range results {
		if r.err != "" || len(r.s.weir) == 0 {
			fmt.Fprintf(&sb, "| %s | — | fails: %s | | | | |\n", r.q.Name, strings.ReplaceAll(firstLine(r.err), "|", "\\|"))
			continue
		}
		wm, pm := median(r.s.weir), median(r.s.pg)
		fmt.Fprintf(&sb, "| %s | %d / %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f |\n", strings.ReplaceAll(r.q.Name, "|", "\\|"),
			r.rows[0], r.rows[1], wm*1e3, pm*1e3, best(r.s.weir, false)*1e3, best(r.s.pg, false)*1e3, wm/pm)
	}
	md := sb.String()
	fmt.Println()
	fmt.Println(md)
	doc := c.doc
	if doc == "" {
		doc = filepath.Join(root, "docs", "benchmarks.md")
	}
	if doc != "-" {
		if err := writeCatalogSection(doc, md); err != nil {
			return err
		}
		logf("wrote %s", doc)
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// The catalog section sits between these markers; it is written after the
// notes marker, so full runs (which rewrite what precedes the notes) keep it.
const (
	catalogBegin = "<!-- catalog -->"
	catalogEnd   = "<!-- /catalog -->"
)

func writeCatalogSection(path, md string) error {
	old, _ := os.ReadFile(path)
	doc := string(old)
	section := catalogBegin + "\n" + strings.TrimRight(md, "\n") + "\n" + catalogEnd + "\n"
	if i := strings.Index(doc, catalogBegin); i >= 0 {
		if j := strings.Index(doc[i:], catalogEnd); j >= 0 {
			rest := strings.TrimPrefix(doc[i+j+len(catalogEnd):], "\n")
			return os.WriteFile(path, []byte(doc[:i]+section+rest), 0o644)
		}
	}
	if doc != "" && !strings.HasSuffix(doc, "\n") {
		doc += "\n"
	}
	return os.WriteFile(path, []byte(doc+"\n"+section), 0o644)
}
