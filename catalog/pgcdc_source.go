package catalog

// PgCDCSource is a postgres-cdc source's definition (connector/pgcdc):
// its options as written, secret('name') references unresolved (the
// connector resolves them each time it connects, so the catalog never
// holds a password), and the captured table's primary key columns (the
// relation's columns are the table's, then _op and _lsn).
type PgCDCSource struct {
	Options map[string]string
	Keys    []string `json:",omitempty"`
}
