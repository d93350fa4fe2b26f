package iceberg

import (
	"strings"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Spec is the options an Iceberg sink takes (CREATE SINK ... WITH
// (connector = 'iceberg', ...), less connector itself):
//
//	warehouse     the warehouse folder (required); the table lives in
//	              <warehouse>/<namespace>/<table>
//	namespace     the table's namespace (default "default"); dots nest
//	              ('lake.bronze' is the folder lake/bronze)
//	table         the table's name (default: the streaming table's)
//	partition_by  the partition spec of a table the sink creates: a comma
//	              list of columns and transforms, as Iceberg names them:
//	              'region', 'day(ts)', 'bucket(16, id)', 'truncate(4, s)';
//	              year, month, day, hour, bucket, truncate, identity
var Spec = connector.OptionSpec{
	Options: []connector.Option{
		{Name: "warehouse", Kind: connector.StringOption},
		{Name: "namespace", Kind: connector.StringOption},
		{Name: "table", Kind: connector.StringOption},
		{Name: "partition_by", Kind: connector.StringOption},
	},
}

// Options are an Iceberg sink's parsed options.
type Options struct {
	Warehouse   string
	Namespace   []string
	Table       string
	PartitionBy []PartitionField
}

// PartitionField is one term of partition_by: a column and the Iceberg
// transform applied to it ("identity", "day", "bucket[16]", ...).
type PartitionField struct {
	Column    string
	Transform string
}

// ParseOptions checks a sink's options; table is the streaming table's
// name, the default of the Iceberg table's ("": not known yet, the
// result's Table is "" unless the option gives it).
func ParseOptions(settings []connector.Setting, table string) (Options, error) {
	o, err := Spec.Parse(settings)
	if err != nil {
		return Options{}, err
	}
	out := Options{Warehouse: o.String("warehouse"), Namespace: []string{"default"}, Table: table}
	if strings.TrimSpace(out.Warehouse) == "" {
		return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "option \"warehouse\" is required").
			WithHint("Give the folder of the Iceberg warehouse: WITH (connector = 'iceberg', warehouse = '/data/lake').")
	}
	if o.Has("namespace") {
		out.Namespace = strings.Split(o.String("namespace"), ".")
	}
	if o.Has("table") {
		out.Table = o.String("table")
	}
	parts := append([]string{}, out.Namespace...)
	if out.Table != "" || o.Has("table") {
		parts = append(parts, out.Table)
	}
	for _, part := range parts {
		if part == "" || part == "." || part == ".." || strings.ContainsAny(part, "/\\") {
			return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid Iceberg table name \"%s\"", strings.Join(out.Namespace, ".")+"."+out.Table).
				WithHint("Namespace parts and the table name must be non-empty and hold no slash.")
		}
	}
	if o.Has("partition_by") {
		if out.PartitionBy, err = parsePartitionBy(o.String("partition_by")); err != nil {
			return Options{}, err
		}
	}
	return out, nil
}

// parsePartitionBy reads 'a, day(ts), bucket(16, id)'.
func parsePartitionBy(s string) ([]PartitionField, error) {
	bad := func() error {
		return sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"partition_by\": \"%s\"", s).
			WithHint("Use a comma list of columns and transforms: region, day(ts), bucket(16, id), truncate(4, name); the transforms are identity, year, month, day, hour, bucket and truncate.")
	}
	var out []PartitionField
	for rest := strings.TrimSpace(s); rest != ""; {
		var term string
		if open := strings.IndexByte(rest, '('); open >= 0 && open < indexOr(rest, ',') {
			close := strings.IndexByte(rest, ')')
			if close < open {
				return nil, bad()
			}
			term, rest = rest[:close+1], strings.TrimSpace(rest[close+1:])
		} else {
			i := indexOr(rest, ',')
			term, rest = rest[:i], rest[i:]
		}
		if rest != "" {
			if rest[0] != ',' {
				return nil, bad()
			}
			rest = strings.TrimSpace(rest[1:])
			if rest == "" {
				return nil, bad()
			}
		}
		f, ok := parsePartitionTerm(strings.TrimSpace(term))
		if !ok {
			return nil, bad()
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, bad()
	}
	return out, nil
}

func indexOr(s string, c byte) int {
	if i := strings.IndexByte(s, c); i >= 0 {
		return i
	}
	return len(s)
}

func parsePartitionTerm(t string) (PartitionField, bool) {
	open := strings.IndexByte(t, '(')
	if open < 0 {
		return PartitionField{Column: t, Transform: "identity"}, t != "" && !strings.ContainsAny(t, " ,)")
	}
	if !strings.HasSuffix(t, ")") {
		return PartitionField{}, false
	}
	fn := strings.ToLower(strings.TrimSpace(t[:open]))
	args := strings.Split(t[open+1:len(t)-1], ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	switch fn {
	case "identity", "year", "month", "day", "hour", "years", "months", "days", "hours":
		if len(args) != 1 || args[0] == "" {
			return PartitionField{}, false
		}
		return PartitionField{Column: args[0], Transform: strings.TrimSuffix(fn, "s")}, true
	case "bucket", "truncate":
		if len(args) != 2 || args[1] == "" || !isCount(args[0]) {
			return PartitionField{}, false
		}
		return PartitionField{Column: args[1], Transform: fn + "[" + args[0] + "]"}, true
	}
	return PartitionField{}, false
}

func isCount(s string) bool {
	if s == "" || len(s) > 9 || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
