package engine

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/checkpoint"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
	"github.com/weir-sql/weir/wire"
)

// DESCRIBE [TABLE] [EXTENDED] name [column], SHOW CREATE TABLE and SHOW
// TBLPROPERTIES, as Databricks prints them (dialect.md, "Describing
// tables"): ordinary rows of text, so that any client shows them. They
// read the catalog and, for streaming tables, the runner's progress; they
// change nothing, so they run inside transaction blocks too.

var (
	describeTableColumns = []wire.Column{{Name: "col_name", Type: types.Text}, {Name: "data_type", Type: types.Text}, {Name: "comment", Type: types.Text}}
	// DESCRIBE name column: one row per fact, as Spark's DescribeColumn.
	describeColumnColumns = []wire.Column{{Name: "info_name", Type: types.Text}, {Name: "info_value", Type: types.Text}}
	showCreateColumns     = []wire.Column{{Name: "createtab_stmt", Type: types.Text}}
	showPropertiesColumns = []wire.Column{{Name: "key", Type: types.Text}, {Name: "value", Type: types.Text}}
)

// describeColumns is the result shape of this file's statements; ok is
// false for every other statement.
func describeColumns(st *parse.StreamingStmt) (cols []wire.Column, ok bool) {
	switch st.Kind {
	case parse.DescribeTable:
		if st.Describe != nil && st.Describe.Column != "" {
			return describeColumnColumns, true
		}
		return describeTableColumns, true
	case parse.ShowCreateTable:
		return showCreateColumns, true
	case parse.ShowTblProperties:
		return showPropertiesColumns, true
	}
	return nil, false
}

// runDescribe runs DESCRIBE, SHOW CREATE TABLE or SHOW TBLPROPERTIES.
func (s *Session) runDescribe(st *statement) (wire.Result, error) {
	ss := st.stream
	rel, err := s.describedRelation(ss.Describe)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	tag := "SHOW"
	switch ss.Kind {
	case parse.DescribeTable:
		tag = "DESCRIBE"
		if ss.Describe.Column != "" {
			rows, err = s.describeColumn(rel, ss.Describe)
		} else {
			rows = s.describeTable(rel, ss.Describe.Extended)
		}
	case parse.ShowCreateTable:
		var text string
		text, err = s.showCreate(rel) // show_create.go
		rows = [][]any{{text}}
	case parse.ShowTblProperties:
		rows = s.showTblProperties(rel, ss.Describe)
	}
	if err != nil {
		return nil, err
	}
	cols := make([][]any, len(st.cols))
	for _, r := range rows {
		for i := range cols {
			cols[i] = append(cols[i], r[i])
		}
	}
	return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{anyBatch(st.cols, cols)}, tag: tag}, nil
}

// describedRelation resolves [catalog.][schema.]name: the catalog part is
// the database, which must be the current one (weir serves one database
// per connection, as PostgreSQL does).
func (s *Session) describedRelation(d *parse.DescribeSpec) (*catalog.Relation, error) {
	parts := d.Name
	var schema string
	switch len(parts) {
	case 3:
		if parts[0] != s.db {
			return nil, &sqlerr.Error{Code: sqlerr.FeatureNotSupported, Position: d.NamePos,
				Message: "cross-database references are not implemented: \"" + strings.Join(parts, ".") + "\""}
		}
		schema = parts[1]
	case 2:
		schema = parts[0]
	}
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), schema, parts[len(parts)-1])
	if err != nil {
		if sys, ok := s.systemRelation(schema, parts[len(parts)-1]); ok {
			return sys, nil
		}
		e := sqlerr.From(err)
		out := &sqlerr.Error{Code: e.Code, Message: e.Message, Position: d.NamePos}
		if name := parts[len(parts)-1]; expr.HasScalar(name) || expr.IsAggregate(name) {
			out.Hint = fmt.Sprintf("%s is a function, not a table: psql's \\df %s describes it.", name, name)
		}
		return nil, out
	}
	return rel, nil
}

// describeTable is DESCRIBE [EXTENDED] name: the columns, the partition
// and clustering columns, and with EXTENDED the detailed section.
func (s *Session) describeTable(rel *catalog.Relation, extended bool) [][]any {
	var rows [][]any
	for _, c := range rel.Columns {
		rows = append(rows, columnRow(c))
	}
	if st := rel.Streaming; st != nil {
		rows = append(rows, columnSection(rel, "# Partition Information", st.PartitionedBy)...)
		if !(len(st.ClusterBy) == 1 && st.ClusterBy[0] == "auto") {
			rows = append(rows, columnSection(rel, "# Clustering Information", st.ClusterBy)...)
		}
	}
	if !extended {
		return rows
	}
	rows = append(rows, maskSection(rel)...) // column_masks.go
	rows = append(rows, []any{"", "", ""}, []any{"# Detailed Table Information", "", ""})
	for _, kv := range s.detailedInformation(rel) {
		rows = append(rows, []any{kv[0], kv[1], ""})
	}
	return rows
}

func columnRow(c catalog.Column) []any {
	var comment any
	if c.Comment != "" {
		comment = c.Comment
	}
	return []any{c.Name, sparkTypeName(c.Type), comment}
}

// columnSection is Spark's "# Partition Information" block: a header, a
// line naming the columns, then the columns (nothing when cols is empty).
func columnSection(rel *catalog.Relation, title string, cols []string) [][]any {
	if len(cols) == 0 {
		return nil
	}
	rows := [][]any{{title, "", ""}, {"# col_name", "data_type", "comment"}}
	for _, name := range cols {
		if i := rel.Column(name); i >= 0 {
			rows = append(rows, columnRow(rel.Columns[i]))
		}
	}
	return rows
}

// detailedInformation is the "# Detailed Table Information" section, as
// name/value pairs.
func (s *Session) detailedInformation(rel *catalog.Relation) [][2]string {
	owner := fmt.Sprint(rel.Owner)
	if r, ok := s.eng.cat.RoleByOID(rel.Owner); ok {
		owner = r.Name
	}
	out := [][2]string{
		{"Catalog", s.db},
		{"Database", rel.Schema},
		{"Table", rel.Name},
		{"Owner", owner},
	}
	if !rel.Created.IsZero() { // a system relation has no creation
		out = append(out, [2]string{"Created Time", rel.Created.In(s.loc).Format("Mon Jan 02 15:04:05 MST 2006")})
	}
	out = append(out, [2]string{"Type", tableType(rel.Kind)})
	switch rel.Kind {
	case catalog.KindTable:
		if t := rel.Table; t != nil {
			if t.WatermarkColumn != "" {
				out = append(out, [2]string{"Watermark", watermarkClause(t.WatermarkColumn, t.WatermarkDelayUS)})
			}
		}
		out = append(out, [2]string{"Table Properties", propertyList(tableOptions(rel))})
	case catalog.KindView:
		out = append(out, [2]string{"View Text", rel.ViewSQL})
	case catalog.KindSource:
		src := rel.Source
		out = append(out, [2]string{"Connector", src.Connector})
		if src.WatermarkColumn != "" {
			out = append(out, [2]string{"Watermark", watermarkClause(src.WatermarkColumn, src.WatermarkDelayUS)})
		}
		out = append(out, s.filesSourceDetails(rel)...) // files_describe.go
		out = append(out, [2]string{"Table Properties", propertyList(tableOptions(rel))})
		out = append(out, [2]string{"View Text", rel.ViewSQL})
	case catalog.KindStreamingTable:
		out = append(out, s.streamingDetails(rel)...)
		out = append(out, s.filesStreamingDetails(rel)...) // files_describe.go
		out = append(out, s.kafkaStreamingDetails(rel)...) // kafka_input.go
	}
	return out
}

// streamingDetails are a streaming table's rows of the detailed section:
// what it is (query, mode, trigger, schedule, clauses) and how it is
// doing (its runner's state and where its checkpoint is).
func (s *Session) streamingDetails(rel *catalog.Relation) [][2]string {
	st := rel.Streaming
	if st.NoQuery {
		return s.targetDetails(rel) // flows_describe.go
	}
	var out [][2]string
	if st.HasComment {
		out = append(out, [2]string{"Comment", st.Comment})
	}
	out = append(out, [2]string{"Table Properties", propertyList(tableOptions(rel))})
	out = append(out, keyDetails(rel)...) // column_constraints.go
	q, _, _ := writtenQuery(st.Definition)
	out = append(out, [2]string{"View Text", q})
	out = append(out, [2]string{"Output Mode", st.OutputMode})
	r := s.eng.runnerFor(rel.OID)
	trig := st.Trigger
	if r != nil && r.trigger.kind == "processing_time" {
		trig += " " + r.trigger.interval.String()
	}
	out = append(out, [2]string{"Trigger", trig})
	out = append(out, clauseDetails(st)...)
	if st.LateRows != "" {
		out = append(out, [2]string{"Late Rows", st.LateRows})
	}
	if st.Quarantine != "" {
		out = append(out, [2]string{"Quarantine", st.Quarantine}) // expectations.go
	}
	if r != nil && r.plan != nil {
		out = append(out, [2]string{"Input", r.plan.Input.Name})
	}
	status, epoch := s.jobState(r)
	out = append(out, [2]string{"State", status})
	cp := s.checkpointText(rel.OID, epoch, "table")
	out = append(out, [2]string{"Checkpoint", cp})
	return out
}

// clauseDetails are a streaming table's Schedule and Expectations rows.
func clauseDetails(st *catalog.StreamingTable) [][2]string {
	var out [][2]string
	if sc := st.Schedule; sc != nil {
		out = append(out, [2]string{"Schedule", sc.Text})
	}
	if len(st.Expectations) > 0 {
		ex := make([]string, len(st.Expectations))
		for i, e := range st.Expectations {
			ex[i] = expectationClause(e)
		}
		out = append(out, [2]string{"Expectations", strings.Join(ex, ", ")})
	}
	return out
}

// jobState is a job's State text (status, error, progress) and epoch.
func (s *Session) jobState(r *runner) (string, int64) {
	if r == nil {
		return statusStopped, 0
	}
	status, lastErr := r.state()
	if lastErr != "" {
		status += ": " + lastErr
	}
	if r.job == nil {
		return status, 0
	}
	p := r.job.Progress()
	status += fmt.Sprintf(", epoch %d, %d input rows, %d output rows", p.Epoch, p.InputRows, p.OutputRows)
	if p.HasWatermark && p.Watermark != math.MinInt64 {
		status += ", watermark " + time.UnixMicro(p.Watermark).In(s.loc).Format("2006-01-02 15:04:05.999999-07")
	}
	return status, p.Epoch
}

// checkpointText is the Checkpoint row of the job keyed by oid (a table's
// or a flow's, as what says).
func (s *Session) checkpointText(oid uint32, epoch int64, what string) string {
	cp := fmt.Sprintf("epoch %d; epoch records under store key prefix %s (e/, %s OID %d as 4 bytes big-endian, /)",
		epoch, storeKeyText(state.EpochPrefix(oid)), what, oid)
	if snap, err := checkpoint.SnapshotEpoch(s.eng.store, oid, exec.SnapshotFormat); err == nil && snap > 0 {
		cp += fmt.Sprintf("; state snapshot of epoch %d", snap)
	}
	return cp
}

// storeKeyText spells a store key with its bytes outside printable
// ASCII (and every byte of the OID) in hex: e/0x00004004/.
func storeKeyText(k []byte) string {
	if len(k) < 7 {
		return fmt.Sprintf("%q", k)
	}
	return fmt.Sprintf("%s0x%x%s", k[:2], k[2:6], k[6:])
}

func tableType(k catalog.RelKind) string {
	switch k {
	case catalog.KindView:
		return "VIEW"
	case catalog.KindStreamingTable:
		return "STREAMING_TABLE"
	case catalog.KindSource:
		return "SOURCE"
	}
	return "MANAGED"
}

// tableOptions are a relation's TBLPROPERTIES, then its WITH options
// prefixed "option." as Databricks lists table options.
func tableOptions(rel *catalog.Relation) []catalog.Property {
	var out []catalog.Property
	switch rel.Kind {
	case catalog.KindTable:
		if t := rel.Table; t != nil && t.Retention > 0 {
			out = append(out, catalog.Property{Key: "option.retention", Value: durationText(t.Retention.Microseconds())})
		}
	case catalog.KindSource:
		_, opts, _ := writtenQuery(rel.Source.Definition)
		out = append(out, optionProperties(opts)...)
	case catalog.KindStreamingTable:
		out = append(out, rel.Streaming.Properties...)
		_, opts, _ := writtenQuery(rel.Streaming.Definition)
		out = append(out, optionProperties(opts)...)
	}
	return out
}

func optionProperties(opts map[string]string) []catalog.Property {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]catalog.Property, len(keys))
	for i, k := range keys {
		out[i] = catalog.Property{Key: "option." + k, Value: opts[k]}
	}
	return out
}

// propertyList is Spark's [k=v,k=v].
func propertyList(ps []catalog.Property) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + "=" + p.Value
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// describeColumn is DESCRIBE [EXTENDED] name column: Spark's info_name /
// info_value rows. weir keeps no column statistics, so EXTENDED's are
// NULL, as Databricks shows them before ANALYZE.
func (s *Session) describeColumn(rel *catalog.Relation, d *parse.DescribeSpec) ([][]any, error) {
	q := d.ColumnQualifier
	qualOK := len(q) == 0 || q[len(q)-1] == rel.Name && (len(q) < 2 || q[len(q)-2] == rel.Schema) && (len(q) < 3 || q[0] == s.db)
	i := rel.Column(d.Column)
	if !qualOK || i < 0 {
		name := strings.Join(append(append([]string(nil), q...), d.Column), ".")
		return nil, &sqlerr.Error{Code: sqlerr.UndefinedColumn, Position: d.ColumnPos,
			Message: fmt.Sprintf("column \"%s\" of relation \"%s\" does not exist", name, rel.Name)}
	}
	c := rel.Columns[i]
	var comment any
	if c.Comment != "" {
		comment = c.Comment
	}
	rows := [][]any{{"col_name", c.Name}, {"data_type", sparkTypeName(c.Type)}, {"comment", comment}}
	if d.Extended {
		for _, k := range []string{"min", "max", "num_nulls", "distinct_count", "avg_col_len", "max_col_len", "histogram"} {
			rows = append(rows, []any{k, nil})
		}
	}
	return rows, nil
}

// showTblProperties is SHOW TBLPROPERTIES name [(key)]: a missing key is
// Spark's sentence as the value, not an error.
func (s *Session) showTblProperties(rel *catalog.Relation, d *parse.DescribeSpec) [][]any {
	props := tableOptions(rel)
	if !d.HasKey {
		rows := make([][]any, len(props))
		for i, p := range props {
			rows[i] = []any{p.Key, p.Value}
		}
		return rows
	}
	for _, p := range props {
		if p.Key == d.Key {
			return [][]any{{p.Key, p.Value}}
		}
	}
	noun := "Table"
	if rel.Kind == catalog.KindView {
		noun = "View"
	}
	return [][]any{{d.Key, fmt.Sprintf("%s %s.%s.%s does not have property: %s", noun, s.db, rel.Schema, rel.Name, d.Key)}}
}

// sparkTypeName is a column type as Databricks prints it, for the types
// Spark has; weir's PostgreSQL type otherwise.
func sparkTypeName(t types.T) string {
	if t.IsArray() {
		return "array<" + sparkTypeName(t.Elem()) + ">"
	}
	switch t.OID {
	case types.OidBool:
		return "boolean"
	case types.OidInt2:
		return "smallint"
	case types.OidInt4:
		return "int"
	case types.OidInt8:
		return "bigint"
	case types.OidFloat4:
		return "float"
	case types.OidFloat8:
		return "double"
	case types.OidNumeric:
		if t.Typmod >= 4 {
			m := t.Typmod - 4
			return fmt.Sprintf("decimal(%d,%d)", (m>>16)&0xffff, m&0xffff)
		}
		return "numeric"
	case types.OidText:
		return "string"
	case types.OidVarchar:
		if t.Typmod >= 4 {
			return fmt.Sprintf("varchar(%d)", t.Typmod-4)
		}
		return "string"
	case types.OidBpchar:
		if t.Typmod >= 4 {
			return fmt.Sprintf("char(%d)", t.Typmod-4)
		}
		return "char(1)"
	case types.OidBytea:
		return "binary"
	case types.OidDate:
		return "date"
	case types.OidTimestamp:
		// weir reads Databricks' TIMESTAMP as PostgreSQL's timestamp
		// (streaming_ddl.go's sparkTypes), so it prints back the same.
		return "timestamp"
	case types.OidTimestampTZ:
		return "timestamp_ltz"
	}
	return t.String()
}

// writtenQuery re-reads a stored CREATE statement: its query as written
// (with weir's and Databricks' clauses: STREAM, WATERMARK, EMIT), its WITH
// options and the statement.
func writtenQuery(def string) (query string, opts map[string]string, st *parse.StreamingStmt) {
	st, err := parse.ParseStreaming(def)
	if err != nil || st == nil {
		return "", nil, nil
	}
	if st.Query != "" && st.QueryOffset > 0 && st.QueryOffset <= len(def) {
		query = strings.TrimRight(strings.TrimSpace(def[st.QueryOffset:]), "; \t\r\n")
	}
	return query, st.Options, st
}

func watermarkClause(col string, delayUS int64) string {
	return quoteName(col) + " AS " + quoteName(col) + " - INTERVAL '" + durationText(delayUS) + "'"
}

// durationText spells microseconds as an interval PostgreSQL reads back.
func durationText(us int64) string {
	for _, u := range []struct {
		us   int64
		name string
	}{{86_400_000_000, "day"}, {3_600_000_000, "hour"}, {60_000_000, "minute"}, {1_000_000, "second"}} {
		if us != 0 && us%u.us == 0 {
			n := us / u.us
			if n == 1 {
				return "1 " + u.name
			}
			return fmt.Sprintf("%d %ss", n, u.name)
		}
	}
	return fmt.Sprintf("%d microseconds", us)
}

func expectationClause(e catalog.Expectation) string {
	out := "CONSTRAINT " + quoteName(e.Name) + " EXPECT (" + e.Expr + ")"
	if e.OnViolation != "" {
		out += " ON VIOLATION " + strings.ToUpper(e.OnViolation)
	}
	return out
}

// mayBeDescribe is session.go's cheap filter for this file's statements
// (u is the query in upper case): a statement starting DESC or SHOW, or
// TBLPROPERTIES anywhere. ORDER BY x DESC does not count.
func mayBeDescribe(u string) bool {
	if strings.Contains(u, "TBLPROPERTIES") {
		return true
	}
	for _, piece := range strings.Split(u, ";") {
		t := strings.TrimLeft(piece, " \t\r\n(")
		for strings.HasPrefix(t, "--") || strings.HasPrefix(t, "/*") {
			end := "\n"
			if strings.HasPrefix(t, "/*") {
				end = "*/"
			}
			i := strings.Index(t, end)
			if i < 0 {
				break
			}
			t = strings.TrimLeft(t[i+len(end):], " \t\r\n")
		}
		if strings.HasPrefix(t, "DESC") || strings.HasPrefix(t, "SHOW") {
			return true
		}
	}
	return false
}
