// Package kafka is the Kafka connector: a Source reading topics into
// Arrow batches (read_kafka, CREATE SOURCE ... WITH (connector =
// 'kafka')) and a Sink writing a streaming table's changes to a topic in
// Kafka transactions (CREATE SINK ... WITH (connector = 'kafka')), both
// through github.com/twmb/franz-go.
//
// Exactly-once on both sides rests on weir's own store, never on offsets
// committed to Kafka: the source records, per batch, the offset range of
// every partition the batch holds (offsetlog.go), so re-reading batch n
// after a restart fetches exactly the same records; the sink commits each
// epoch's records and the epoch number in one Kafka transaction, and
// reads the last committed epoch back from the topic when it starts
// (sink.go).
package kafka
