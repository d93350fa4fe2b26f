package engine

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

func (s *Session) set(v *pg_query.VariableSetStmt, io wire.ExecIO) (wire.Result, error) {
	switch v.Kind {
	case pg_query.VariableSetKind_VAR_RESET_ALL:
		for _, st := range settingList {
			if !st.readOnly {
				s.assign(&st, st.def, io)
			}
		}
		return commandResult("RESET"), nil
	case pg_query.VariableSetKind_VAR_SET_MULTI:
		// SET TRANSACTION / SESSION CHARACTERISTICS: weir runs every
		// transaction at READ COMMITTED-or-stronger snapshot semantics;
		// accept and remember nothing.
		return commandResult("SET"), nil
	}
	if res, ok, err := s.setIdentity(v, io); ok {
		return res, err
	}
	st, ok := lookupSetting(v.Name)
	if !ok {
		return nil, unknownSetting(v.Name)
	}
	if st.readOnly {
		return nil, sqlerr.New("55P02", "parameter \"%s\" cannot be changed", v.Name)
	}
	value := st.def
	tag := "SET"
	switch v.Kind {
	case pg_query.VariableSetKind_VAR_SET_VALUE:
		parts := make([]string, 0, len(v.Args))
		for _, a := range v.Args {
			s, err := settingValue(a)
			if err != nil {
				return nil, err
			}
			parts = append(parts, s)
		}
		value = strings.Join(parts, ", ")
	case pg_query.VariableSetKind_VAR_RESET:
		tag = "RESET"
	}
	if err := s.checkSetting(st, &value); err != nil {
		return nil, err
	}
	s.assign(st, value, io)
	return commandResult(tag), nil
}

// checkSetting validates and canonicalises a new value of st.
func (s *Session) checkSetting(st *setting, value *string) error {
	var cv string
	var err error
	switch {
	case st.merge != nil:
		cv, err = st.merge(s.settings[strings.ToLower(st.name)], *value)
	case st.check != nil:
		cv, err = st.check(*value)
	default:
		return nil
	}
	if err == nil {
		*value = cv
	}
	return err
}

// assign changes a setting and reports it to the client when PostgreSQL
// would (GUC_REPORT parameters).
func (s *Session) assign(st *setting, value string, io wire.ExecIO) {
	key := strings.ToLower(st.name)
	if s.settings[key] == value {
		return
	}
	s.settings[key] = value
	if key == "timezone" {
		s.applyTimeZone()
	}
	if key == "application_name" {
		s.appName.Store(&value) // read by other sessions' pg_stat_activity
	}
	if strings.HasSuffix(key, "_timeout") {
		s.timeouts = nil
	}
	if st.reported && io != nil {
		io.ParameterStatus(st.name, value)
	}
}

// settingValue renders one SET argument: identifiers and strings as they
// are, numbers as written.
func settingValue(n *pg_query.Node) (string, error) {
	if c := n.GetAConst(); c != nil {
		switch {
		case c.GetSval() != nil:
			return c.GetSval().Sval, nil
		case c.GetIval() != nil:
			return strconv.Itoa(int(c.GetIval().Ival)), nil
		case c.GetFval() != nil:
			return c.GetFval().Fval, nil
		case c.GetBoolval() != nil:
			if c.GetBoolval().Boolval {
				return "on", nil
			}
			return "off", nil
		}
	}
	if tc := n.GetTypeCast(); tc != nil {
		// SET TIME ZONE INTERVAL '+05:00' HOUR TO MINUTE
		return settingValue(tc.Arg)
	}
	return "", sqlerr.New(sqlerr.SyntaxError, "unsupported SET value")
}

func (s *Session) show(st *statement, v *pg_query.VariableShowStmt) (wire.Result, error) {
	if strings.EqualFold(v.Name, "all") {
		var names, vals, descs []string
		for _, set := range sortedSettings() {
			names = append(names, set.name)
			vals = append(vals, s.settings[strings.ToLower(set.name)])
			descs = append(descs, set.desc)
		}
		return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{textBatch(names, vals, descs)}, tag: "SHOW"}, nil
	}
	name := v.Name
	if name == "transaction_isolation" || name == "transaction isolation level" {
		name = "transaction_isolation"
	}
	set, ok := lookupSetting(name)
	if !ok {
		return nil, unknownSetting(v.Name)
	}
	return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{textBatch([]string{s.settings[strings.ToLower(set.name)]})}, tag: "SHOW"}, nil
}

// textBatch builds a batch of text columns.
func textBatch(cols ...[]string) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: "c" + strconv.Itoa(i), Type: arrow.BinaryTypes.String, Nullable: true}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.AppendValues(c, nil)
		arrs[i] = b.NewArray()
		b.Release()
	}
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
}
