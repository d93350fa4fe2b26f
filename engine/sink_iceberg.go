package engine

import (
	"sort"
	"strconv"
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/iceberg"
	"github.com/weir-sql/weir/internal/failpoint"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// The iceberg connector (connector/iceberg, docs/iceberg.md): a sink that
// writes a streaming table's epochs to an Iceberg table in a warehouse
// folder, one snapshot per epoch. An append-mode table's rows are
// appended; an update- or complete-mode table's change feed is applied,
// each epoch overwriting the table with its contents.

// icebergSinkDefinition checks CREATE SINK's options for the iceberg
// connector. Writing the warehouse's files needs the privileges of
// pg_write_server_files, as a files sink does.
func (s *Session) icebergSinkDefinition(def *catalog.Sink, opts map[string]string) (*catalog.Sink, error) {
	if !s.hasPrivsOfOID(catalog.WriteServerFilesRoleOID) {
		return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to create an iceberg sink").
			WithDetail("Only roles with privileges of the \"pg_write_server_files\" role may write files on the server.")
	}
	settings := make([]connector.Setting, 0, len(opts))
	for k, v := range opts {
		if k != "connector" {
			settings = append(settings, connector.Setting{Name: k, Value: v})
		}
	}
	// The table's name defaults to the sink's until CREATE SINK knows the
	// streaming table (checkIcebergSink).
	sort.Slice(settings, func(i, j int) bool { return settings[i].Name < settings[j].Name })
	o, err := iceberg.ParseOptions(settings, "")
	if err != nil {
		return nil, err
	}
	abs, err := s.eng.resolveUnderRoots(o.Warehouse) // files_access.go: under the files roots
	if err != nil {
		return nil, err
	}
	def.Iceberg = &catalog.IcebergSink{Warehouse: abs, Namespace: strings.Join(o.Namespace, "."), Table: o.Table,
		PartitionBy: opts["partition_by"]}
	return def, nil
}

// checkIcebergSink completes an iceberg sink's definition once its
// streaming table is known (the Iceberg table's name defaults to the
// streaming table's) and refuses, before it is stored, a sink whose
// columns Iceberg cannot hold (0A000 naming the column) or whose
// partition_by does not fit them; and a second sink writing the same
// Iceberg table.
func (s *Session) checkIcebergSink(def *catalog.Sink, from *catalog.Relation) error {
	if def.Iceberg.Table == "" {
		def.Iceberg.Table = from.Name
	}
	for _, other := range s.eng.cat.Sinks() {
		if o := other.Iceberg; o != nil && o.Warehouse == def.Iceberg.Warehouse && o.Namespace == def.Iceberg.Namespace && o.Table == def.Iceberg.Table {
			return sqlerr.New(sqlerr.InvalidParameterValue, "sink %s already writes to Iceberg table %s.%s", other.Name, o.Namespace, o.Table)
		}
	}
	cfg, err := icebergConfig(def, from, "")
	if err != nil {
		return err
	}
	return iceberg.Check(cfg)
}

// icebergConfig is the connector's configuration of a stored sink.
func icebergConfig(def *catalog.Sink, table *catalog.Relation, mode string) (iceberg.Config, error) {
	o := def.Iceberg
	settings := []connector.Setting{{Name: "warehouse", Value: o.Warehouse}, {Name: "namespace", Value: o.Namespace}}
	if o.PartitionBy != "" {
		settings = append(settings, connector.Setting{Name: "partition_by", Value: o.PartitionBy})
	}
	opts, err := iceberg.ParseOptions(settings, o.Table)
	if err != nil {
		return iceberg.Config{}, err
	}
	cols := make([]iceberg.Column, len(table.Columns))
	for i, c := range table.Columns {
		cols[i] = iceberg.Column{Name: c.Name, Type: c.Type}
	}
	// The identity in the snapshots' summaries: the sink's OID makes a
	// sink created again under the same name (whose epochs start over)
	// another writer.
	return iceberg.Config{Options: opts, Columns: cols, Updates: mode != planner.AppendMode, Crash: failpoint.Hit,
		Identity: table.Name + "/" + def.Name + "#" + strconv.FormatUint(uint64(def.OID), 10)}, nil
}

// openIcebergSink opens a stored iceberg sink of table, whose output mode
// is mode.
func (e *Engine) openIcebergSink(def *catalog.Sink, table *catalog.Relation, mode string) (connector.Sink, error) {
	cfg, err := icebergConfig(def, table, mode)
	if err != nil {
		return nil, err
	}
	s, err := iceberg.Open(cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// icebergOptionsText is an iceberg sink's options as SHOW SINKS prints
// them.
func icebergOptionsText(def *catalog.Sink) []string {
	o := def.Iceberg
	if o == nil {
		return nil
	}
	kv := []string{"warehouse=" + o.Warehouse, "namespace=" + o.Namespace, "table=" + o.Table}
	if o.PartitionBy != "" {
		kv = append(kv, "partition_by="+o.PartitionBy)
	}
	return kv
}
