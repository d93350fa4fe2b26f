package exec

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/nexmark"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// startNexmark starts nexmark(table, name => value, ...): the Nexmark
// generator (connector/nexmark) as a bounded table function. The
// arguments are the connector's options, so a bad one is the same 22023
// as in CREATE SOURCE; max_events is required, as a query must end. Rows
// are generated straight into the scan's builders, BatchSize at a time.
func (f *functionScanOp) startNexmark(args []expr.Datum) error {
	settings := make([]connector.Setting, 0, len(args))
	for i, a := range args {
		name := ""
		if i < len(f.plan.ArgNames) {
			name = f.plan.ArgNames[i]
		}
		if a == nil {
			return sqlerr.New(sqlerr.InvalidParameterValue, "option \"%s\" of nexmark must not be null", name)
		}
		settings = append(settings, connector.Setting{Name: name, Value: datumText(a)})
	}
	o, err := nexmark.ParseOptions(settings)
	if err != nil {
		return err
	}
	if o.Config.MaxEvents <= 0 {
		return sqlerr.New(sqlerr.InvalidParameterValue, "nexmark in a query needs option \"max_events\"").
			WithHint("Give max_events => N (the events of all three tables), so that the scan ends.")
	}
	g, err := nexmark.NewGenerator(o.Config)
	if err != nil {
		return err
	}
	total := g.Rows(o.Table)
	var pos int64
	f.gen = func(bs []array.Builder, limit int) (int, error) {
		n := int(min(int64(limit), total-pos))
		if n <= 0 {
			return 0, nil
		}
		if err := g.AppendRows(o.Table, pos, n, bs); err != nil {
			return 0, err
		}
		pos += int64(n)
		return n, nil
	}
	return nil
}

// datumText is an option value as the option parser reads it.
func datumText(d expr.Datum) string {
	switch v := d.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(d)
}
