// Package nexmarkq reads the Nexmark query files of testdata/nexmark,
// which the Nexmark suite (engine/nexmark_suite_test.go) and weirbench
// -nexmark both run. A file qN.sql holds a header of "-- " comment lines
// (the first sentence is the title, "q5: Hot Items."), a "-- streams: t,
// ..." line naming the stream inputs (a table read twice is named twice:
// input_rows counts it twice), then "-- streaming:" and the query of
// CREATE STREAMING TABLE, then "-- batch:" and the batch SQL giving the
// same rows.
package nexmarkq

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Query is one query file.
type Query struct {
	Name      string   // "q5"
	Title     string   // "q5: Hot Items."
	Streams   []string // the stream inputs
	Streaming string   // the query of CREATE STREAMING TABLE
	Batch     string   // the same result as batch SQL
}

// Load reads dir/q*.sql in query order (q0, q1, …, q22).
func Load(dir string) ([]Query, error) {
	files, err := filepath.Glob(filepath.Join(dir, "q*.sql"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no queries in %s (%v)", dir, err)
	}
	var qs []Query
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		q := Query{Name: strings.TrimSuffix(filepath.Base(f), ".sql")}
		part := 0 // 0: the header, 1: the streaming query, 2: the batch query
		var header, streaming, batch strings.Builder
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case line == "-- streaming:":
				part = 1
			case line == "-- batch:":
				part = 2
			case part == 0 && strings.HasPrefix(line, "-- streams:"):
				for _, s := range strings.Split(strings.TrimPrefix(line, "-- streams:"), ",") {
					q.Streams = append(q.Streams, strings.TrimSpace(s))
				}
			case part == 0 && strings.HasPrefix(line, "-- "):
				header.WriteString(strings.TrimPrefix(line, "-- ") + " ")
			case part == 1:
				streaming.WriteString(line + "\n")
			case part == 2:
				batch.WriteString(line + "\n")
			}
		}
		q.Title = header.String()
		if i := strings.Index(q.Title, ". "); i > 0 {
			q.Title = q.Title[:i+1]
		}
		q.Streaming, q.Batch = strings.TrimSpace(streaming.String()), strings.TrimSpace(batch.String())
		if q.Streaming == "" || q.Batch == "" || len(q.Streams) == 0 {
			return nil, fmt.Errorf("%s: needs -- streams:, -- streaming: and -- batch:", f)
		}
		qs = append(qs, q)
	}
	num := func(q Query) int { n, _ := strconv.Atoi(strings.TrimPrefix(q.Name, "q")); return n }
	sort.Slice(qs, func(i, j int) bool { return num(qs[i]) < num(qs[j]) })
	return qs, nil
}
