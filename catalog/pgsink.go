package catalog

// PostgresSink is the postgres sink's options (connector/pgsink): the
// connection string as written (secret('name') unresolved: it is opened
// each time the sink connects), the target table and the key upserts use.
type PostgresSink struct {
	URL        string
	Table      string
	PrimaryKey []string `json:",omitempty"`
}
