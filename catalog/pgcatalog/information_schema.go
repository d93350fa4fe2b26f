package pgcatalog

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// information_schema's domains, by their base types as PostgreSQL 15
// defines them: sql_identifier is name, character_data varchar,
// cardinal_number integer, yes_or_no varchar(3).
var (
	sqlIdentifier  = types.Name
	characterData  = types.Varchar
	cardinalNumber = types.Int4
)

// informationSchemaOIDBase numbers the information_schema views, which
// PostgreSQL creates at initdb with varying OIDs.
const informationSchemaOIDBase uint32 = 13100

func informationSchema() []*Table {
	tables := []*Table{
		isTables(), isColumns(), isSchemata(), isTableConstraints(),
		isKeyColumnUsage(), isViews(), isRoutines(),
		isEnabledRoles(), isApplicableRoles(), isAdministrableRoleAuthorizations(),
		isTablePrivileges(), isRoleTableGrants(), isColumnPrivileges(), isRoleColumnGrants(), isUsagePrivileges(),
		isRoutinePrivileges(), isRoleRoutineGrants(), isRoleUsageGrants(),
	}
	for i, t := range tables {
		t.OID = informationSchemaOIDBase + uint32(i)
		t.Schema = "information_schema"
		t.Kind = 'v'
	}
	tables = append(tables, isColumnMasks()) // information_schema_column_masks.go (its own OID)
	return tables
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func isTables() *Table {
	cols := []catalog.Column{
		col("table_catalog", sqlIdentifier),
		col("table_schema", sqlIdentifier),
		col("table_name", sqlIdentifier),
		col("table_type", characterData),
		col("self_referencing_column_name", sqlIdentifier),
		col("reference_generation", characterData),
		col("user_defined_type_catalog", sqlIdentifier),
		col("user_defined_type_schema", sqlIdentifier),
		col("user_defined_type_name", sqlIdentifier),
		col("is_insertable_into", yesOrNo),
		col("is_typed", yesOrNo),
		col("commit_action", characterData),
	}
	return &Table{Name: "tables", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			vis := s.visibility() // privilege_visibility.go
			for _, r := range s.relations() {
				if !vis.relation(r) {
					continue
				}
				typ := "BASE TABLE"
				if r.Kind == 'v' {
					typ = "VIEW"
				}
				rb.add(s.Database, r.Schema, r.Name, typ, nil, nil, nil, nil, nil,
					yesNo(r.Kind == 'r' && !r.Virtual), "NO", nil)
			}
			return rb.finish()
		}}
}

func isColumns() *Table {
	cols := []catalog.Column{
		col("table_catalog", sqlIdentifier),
		col("table_schema", sqlIdentifier),
		col("table_name", sqlIdentifier),
		col("column_name", sqlIdentifier),
		col("ordinal_position", cardinalNumber),
		col("column_default", characterData),
		col("is_nullable", yesOrNo),
		col("data_type", characterData),
		col("character_maximum_length", cardinalNumber),
		col("character_octet_length", cardinalNumber),
		col("numeric_precision", cardinalNumber),
		col("numeric_precision_radix", cardinalNumber),
		col("numeric_scale", cardinalNumber),
		col("datetime_precision", cardinalNumber),
		col("interval_type", characterData),
		col("interval_precision", cardinalNumber),
		col("character_set_catalog", sqlIdentifier),
		col("character_set_schema", sqlIdentifier),
		col("character_set_name", sqlIdentifier),
		col("collation_catalog", sqlIdentifier),
		col("collation_schema", sqlIdentifier),
		col("collation_name", sqlIdentifier),
		col("domain_catalog", sqlIdentifier),
		col("domain_schema", sqlIdentifier),
		col("domain_name", sqlIdentifier),
		col("udt_catalog", sqlIdentifier),
		col("udt_schema", sqlIdentifier),
		col("udt_name", sqlIdentifier),
		col("scope_catalog", sqlIdentifier),
		col("scope_schema", sqlIdentifier),
		col("scope_name", sqlIdentifier),
		col("maximum_cardinality", cardinalNumber),
		col("dtd_identifier", sqlIdentifier),
		col("is_self_referencing", yesOrNo),
		col("is_identity", yesOrNo),
		col("identity_generation", characterData),
		col("identity_start", characterData),
		col("identity_increment", characterData),
		col("identity_maximum", characterData),
		col("identity_minimum", characterData),
		col("identity_cycle", yesOrNo),
		col("is_generated", characterData),
		col("generation_expression", characterData),
		col("is_updatable", yesOrNo),
	}
	return &Table{Name: "columns", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			vis := s.visibility() // privilege_visibility.go
			for _, r := range s.relations() {
				updatable := yesNo(r.Kind == 'r' && !r.Virtual)
				for i, c := range r.Columns {
					if !vis.column(r, c) {
						continue
					}
					d := describeType(c.Type)
					var collCatalog, collSchema, collName any
					if collationOf(c.Type.OID) == collationC {
						collCatalog, collSchema, collName = s.Database, "pg_catalog", "C"
					}
					pos := strconv.Itoa(i + 1)
					rb.add(s.Database, r.Schema, r.Name, c.Name, int32(i+1), nullIfEmpty(c.Default),
						yesNo(!c.NotNull), d.dataType, d.charMaxLen, d.charOctetLen,
						d.numPrecision, d.numRadix, d.numScale, d.datetimePrecision, nil, nil,
						nil, nil, nil, collCatalog, collSchema, collName, nil, nil, nil,
						s.Database, "pg_catalog", d.udtName, nil, nil, nil, nil, pos,
						"NO", "NO", nil, nil, nil, nil, nil, "NO", "NEVER", nil, updatable)
				}
			}
			return rb.finish()
		}}
}

// typeDescription is how information_schema.columns describes a type;
// nil fields are SQL NULL.
type typeDescription struct {
	dataType          string
	udtName           string
	charMaxLen        any
	charOctetLen      any
	numPrecision      any
	numRadix          any
	numScale          any
	datetimePrecision any
}

// maxCharOctets is character_octet_length of unbounded strings, as
// PostgreSQL reports it (1 GB).
const maxCharOctets int32 = 1073741824

// describeType follows PostgreSQL's information_schema._pg_char_max_length,
// _pg_numeric_precision and friends: arrays are "ARRAY", other types use
// their SQL spelling without modifiers.
func describeType(t types.T) typeDescription {
	info := t.Info()
	d := typeDescription{dataType: info.SQLName, udtName: info.Name}
	if isArrayType(info) {
		d.dataType = "ARRAY"
		return d
	}
	switch info.OID {
	case types.OidVarchar, types.OidBpchar:
		if t.Typmod >= 4 {
			n := t.Typmod - 4
			d.charMaxLen, d.charOctetLen = n, n*4
		} else {
			d.charOctetLen = maxCharOctets
		}
	case types.OidText:
		d.charOctetLen = maxCharOctets
	case types.OidInt2:
		d.numPrecision, d.numRadix, d.numScale = int32(16), int32(2), int32(0)
	case types.OidInt4:
		d.numPrecision, d.numRadix, d.numScale = int32(32), int32(2), int32(0)
	case types.OidInt8:
		d.numPrecision, d.numRadix, d.numScale = int32(64), int32(2), int32(0)
	case types.OidFloat4:
		d.numPrecision, d.numRadix = int32(24), int32(2)
	case types.OidFloat8:
		d.numPrecision, d.numRadix = int32(53), int32(2)
	case types.OidNumeric:
		d.numRadix = int32(10)
		if t.Typmod >= 4 {
			m := t.Typmod - 4
			d.numPrecision, d.numScale = (m>>16)&0xffff, m&0xffff
		}
	case types.OidDate:
		d.datetimePrecision = int32(0)
	case types.OidTime, types.OidTimestamp, types.OidTimestampTZ, types.OidInterval:
		d.datetimePrecision = int32(6)
		if t.Typmod >= 0 && info.OID != types.OidInterval {
			d.datetimePrecision = t.Typmod
		}
	}
	return d
}

func isSchemata() *Table {
	cols := []catalog.Column{
		col("catalog_name", sqlIdentifier),
		col("schema_name", sqlIdentifier),
		col("schema_owner", sqlIdentifier),
		col("default_character_set_catalog", sqlIdentifier),
		col("default_character_set_schema", sqlIdentifier),
		col("default_character_set_name", sqlIdentifier),
		col("sql_path", characterData),
	}
	return &Table{Name: "schemata", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			vis := s.visibility() // privilege_visibility.go
			for _, sc := range s.schemas() {
				if !vis.schema(sc) {
					continue
				}
				rb.add(s.Database, sc.Name, s.roleName(sc.Owner), nil, nil, nil, nil)
			}
			return rb.finish()
		}}
}

func isTableConstraints() *Table {
	cols := []catalog.Column{
		col("constraint_catalog", sqlIdentifier),
		col("constraint_schema", sqlIdentifier),
		col("constraint_name", sqlIdentifier),
		col("table_catalog", sqlIdentifier),
		col("table_schema", sqlIdentifier),
		col("table_name", sqlIdentifier),
		col("constraint_type", characterData),
		col("is_deferrable", yesOrNo),
		col("initially_deferred", yesOrNo),
		col("enforced", yesOrNo),
		col("nulls_distinct", yesOrNo),
	}
	return &Table{Name: "table_constraints", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.userRelations() {
				if r.pkAttnums() == nil {
					continue
				}
				rb.add(s.Database, r.Schema, PKIndexName(r.Name), s.Database, r.Schema, r.Name,
					"PRIMARY KEY", "NO", "NO", "YES", nil)
			}
			return rb.finish()
		}}
}

func isKeyColumnUsage() *Table {
	cols := []catalog.Column{
		col("constraint_catalog", sqlIdentifier),
		col("constraint_schema", sqlIdentifier),
		col("constraint_name", sqlIdentifier),
		col("table_catalog", sqlIdentifier),
		col("table_schema", sqlIdentifier),
		col("table_name", sqlIdentifier),
		col("column_name", sqlIdentifier),
		col("ordinal_position", cardinalNumber),
		col("position_in_unique_constraint", cardinalNumber),
	}
	return &Table{Name: "key_column_usage", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.userRelations() {
				for i, n := range r.pkAttnums() {
					rb.add(s.Database, r.Schema, PKIndexName(r.Name), s.Database, r.Schema, r.Name,
						r.Columns[n-1].Name, int32(i+1), nil)
				}
			}
			return rb.finish()
		}}
}

func isViews() *Table {
	cols := []catalog.Column{
		col("table_catalog", sqlIdentifier),
		col("table_schema", sqlIdentifier),
		col("table_name", sqlIdentifier),
		col("view_definition", characterData),
		col("check_option", characterData),
		col("is_updatable", yesOrNo),
		col("is_insertable_into", yesOrNo),
		col("is_trigger_updatable", yesOrNo),
		col("is_trigger_deletable", yesOrNo),
		col("is_trigger_insertable_into", yesOrNo),
	}
	return &Table{Name: "views", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.relations() {
				if r.Kind != 'v' {
					continue
				}
				rb.add(s.Database, r.Schema, r.Name, nullIfEmpty(r.ViewSQL), "NONE",
					"NO", "NO", "NO", "NO", "NO")
			}
			return rb.finish()
		}}
}

// isRoutines lists the registry's functions, as PostgreSQL lists its
// built-in ones; aggregates have no routine_type there.
func isRoutines() *Table {
	cols := []catalog.Column{
		col("specific_catalog", sqlIdentifier),
		col("specific_schema", sqlIdentifier),
		col("specific_name", sqlIdentifier),
		col("routine_catalog", sqlIdentifier),
		col("routine_schema", sqlIdentifier),
		col("routine_name", sqlIdentifier),
		col("routine_type", characterData),
		col("data_type", characterData),
		col("type_udt_catalog", sqlIdentifier),
		col("type_udt_schema", sqlIdentifier),
		col("type_udt_name", sqlIdentifier),
		col("routine_body", characterData),
		col("routine_definition", characterData),
		col("external_name", characterData),
		col("external_language", characterData),
		col("parameter_style", characterData),
		col("is_deterministic", yesOrNo),
		col("sql_data_access", characterData),
		col("is_null_call", yesOrNo),
		col("security_type", characterData),
	}
	return &Table{Name: "routines", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for i, f := range s.Functions {
				oid := s.FunctionOID(i)
				var routineType any = "FUNCTION"
				if f.IsAggregate || f.IsWindow {
					routineType = nil
				}
				d := describeType(f.RetType)
				rb.add(s.Database, "pg_catalog", f.Name+"_"+strconv.FormatUint(uint64(oid), 10),
					s.Database, "pg_catalog", f.Name, routineType, d.dataType,
					s.Database, "pg_catalog", d.udtName, "EXTERNAL", f.Name, f.Name, "INTERNAL",
					"GENERAL", "NO", "MODIFIES", "YES", "INVOKER")
			}
			return rb.finish()
		}}
}
