package pgcatalog_test

import (
	"strings"
	"testing"

	"github.com/weir-sql/weir/catalog/pgcatalog"
	"github.com/weir-sql/weir/sql/types"
)

// psqlColumns lists, per relation, every column that the queries psql 15
// sends (/work/shared/compat/psql_queries.sql: \d, \dt, \dv, \dn, \l, \du,
// \df, \d NAME, \d+ NAME, \dT, \dp, \dd, \db, \dx, \dC) and the drivers of
// requirements_summary.md reference, with PostgreSQL 15's typname.
var psqlColumns = map[string]string{
	"pg_class": "oid:oid relname:name relnamespace:oid relkind:char relowner:oid relam:oid relchecks:int2 " +
		"relhasindex:bool relhasrules:bool relhastriggers:bool relrowsecurity:bool relforcerowsecurity:bool " +
		"relispartition:bool reltablespace:oid reloftype:oid relpersistence:char relreplident:char " +
		"reltoastrelid:oid reloptions:_text relpartbound:pg_node_tree relacl:_aclitem reltype:oid relnatts:int2",
	"pg_namespace": "oid:oid nspname:name nspowner:oid nspacl:_aclitem",
	"pg_am":        "oid:oid amname:name amtype:char",
	"pg_attribute": "attrelid:oid attname:name atttypid:oid atttypmod:int4 attnum:int2 attnotnull:bool " +
		"attisdropped:bool atthasdef:bool attidentity:char attgenerated:char attcollation:oid attlen:int2 " +
		"attstorage:char attcompression:char attstattarget:int4 attacl:_aclitem",
	"pg_attrdef":   "adbin:pg_node_tree adrelid:oid adnum:int2",
	"pg_collation": "oid:oid collname:name",
	"pg_type": "oid:oid typname:name typnamespace:oid typtype:char typbasetype:oid typtypmod:int4 " +
		"typnotnull:bool typrelid:oid typelem:oid typarray:oid typinput:regproc typcollation:oid " +
		"typcategory:char typdefault:text",
	"pg_index": "indrelid:oid indexrelid:oid indisprimary:bool indisunique:bool indisclustered:bool " +
		"indisvalid:bool indisreplident:bool indkey:int2vector indexprs:pg_node_tree indpred:pg_node_tree " +
		"indoption:int2vector indnkeyatts:int2",
	"pg_constraint": "oid:oid conname:name conrelid:oid conindid:oid contype:char condeferrable:bool " +
		"condeferred:bool contypid:oid conparentid:oid confrelid:oid conkey:_int2",
	"pg_policy": "polname:name polpermissive:bool polroles:_oid polqual:pg_node_tree polrelid:oid " +
		"polwithcheck:pg_node_tree polcmd:char",
	"pg_roles": "oid:oid rolname:name rolsuper:bool rolinherit:bool rolcreaterole:bool rolcreatedb:bool " +
		"rolcanlogin:bool rolconnlimit:int4 rolvaliduntil:timestamptz rolreplication:bool rolbypassrls:bool",
	"pg_statistic_ext":         "oid:oid stxrelid:oid stxnamespace:oid stxname:name stxkind:_char stxstattarget:int4",
	"pg_publication":           "oid:oid pubname:name puballtables:bool",
	"pg_publication_namespace": "pnpubid:oid pnnspid:oid",
	"pg_publication_rel":       "prpubid:oid prrelid:oid prqual:pg_node_tree prattrs:int2vector",
	"pg_inherits":              "inhparent:oid inhrelid:oid inhseqno:int4 inhdetachpending:bool",
	"pg_database": "oid:oid datname:name datdba:oid encoding:int4 datcollate:text datctype:text " +
		"daticulocale:text datlocprovider:char datacl:_aclitem dattablespace:oid",
	"pg_auth_members":     "roleid:oid member:oid",
	"pg_proc":             "oid:oid proname:name prokind:char pronamespace:oid",
	"pg_description":      "objoid:oid classoid:oid objsubid:int4 description:text",
	"pg_opclass":          "oid:oid opcname:name opcmethod:oid opcnamespace:oid",
	"pg_opfamily":         "oid:oid opfname:name opfmethod:oid opfnamespace:oid",
	"pg_rewrite":          "oid:oid rulename:name ev_class:oid",
	"pg_trigger":          "oid:oid tgname:name tgrelid:oid tgenabled:char tgisinternal:bool tgparentid:oid",
	"pg_tablespace":       "oid:oid spcname:name spcowner:oid",
	"pg_extension":        "oid:oid extname:name extversion:text extnamespace:oid",
	"pg_cast":             "castsource:oid casttarget:oid castmethod:char castcontext:char castfunc:oid",
	"pg_settings":         "name:text setting:text",
	"pg_enum":             "enumtypid:oid enumlabel:name enumsortorder:float4",
	"pg_sequence":         "seqrelid:oid seqstart:int8 seqincrement:int8 seqmax:int8 seqmin:int8 seqcache:int8 seqcycle:bool",
	"pg_stat_activity":    "pid:int4 datname:name usename:name application_name:text",
	"pg_tables":           "schemaname:name tablename:name",
	"pg_views":            "schemaname:name viewname:name definition:text",
	"pg_matviews":         "schemaname:name matviewname:name definition:text",
	"pg_stat_user_tables": "relid:oid schemaname:name relname:name n_live_tup:int8",
}

func TestPsqlColumnsExist(t *testing.T) {
	for rel, spec := range psqlColumns {
		tab := pgcatalog.Lookup("pg_catalog", rel)
		if tab == nil {
			t.Errorf("no relation %s", rel)
			continue
		}
		for _, field := range strings.Fields(spec) {
			name, typname, _ := strings.Cut(field, ":")
			i := tab.Column(name)
			if i < 0 {
				t.Errorf("%s.%s missing", rel, name)
				continue
			}
			want, ok := types.ByTypname(typname)
			if !ok {
				t.Fatalf("bad typname %s", typname)
			}
			if got := tab.Columns[i].Type.OID; got != want.OID {
				t.Errorf("%s.%s has type %d, want %s (%d)", rel, name, got, typname, want.OID)
			}
		}
	}
}
