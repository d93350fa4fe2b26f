package catalog

// IcebergSink is the iceberg connector's options, checked at CREATE SINK
// (connector/iceberg documents each).
type IcebergSink struct {
	Warehouse   string // absolute: resolved at CREATE SINK
	Namespace   string // dotted
	Table       string
	PartitionBy string `json:",omitempty"` // as written: 'region, day(ts)'
}
