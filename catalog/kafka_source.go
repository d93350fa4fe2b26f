package catalog

// KafkaSource is a Kafka source's definition (connector/kafka reads it
// whenever the source opens).
type KafkaSource struct {
	// Options are the options as written (Databricks' or RisingWave's
	// names), connector excluded: a credential stays secret('name') here
	// and is resolved only when the source opens.
	Options []FilesOption
	// Format is raw (read_kafka's columns), json or csv.
	Format string
	// Columns are a json or csv source's declared columns; Rescued names
	// its rescued-data column (jsonb), "" when none.
	Columns []Column `json:",omitempty"`
	Rescued string   `json:",omitempty"`
	// Input is, in a streaming table, the position of its read_kafka
	// call among the query's (0-based); 0 for a named source.
	Input int `json:",omitempty"`
}

func (k *KafkaSource) clone() *KafkaSource {
	if k == nil {
		return nil
	}
	c := *k
	c.Options = append([]FilesOption(nil), k.Options...)
	c.Columns = append([]Column(nil), k.Columns...)
	return &c
}

// KafkaSink is a Kafka sink's definition (connector/kafka's Sink).
type KafkaSink struct {
	// Options are the client options as written (bootstrap servers,
	// SASL: a credential stays secret('name')).
	Options []FilesOption
	Topic   string
	Format  string   // json
	Key     []string `json:",omitempty"` // the key columns; the table's primary key when not given
	// ProgressTopic is where the sink's committed epochs are recorded.
	ProgressTopic string `json:",omitempty"`
	// TransactionID is the producer's transactional.id, fixed at CREATE.
	TransactionID string
}

func (k *KafkaSink) clone() *KafkaSink {
	if k == nil {
		return nil
	}
	c := *k
	c.Options = append([]FilesOption(nil), k.Options...)
	c.Key = append([]string(nil), k.Key...)
	return &c
}
