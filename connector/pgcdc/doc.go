// Package pgcdc is the postgres-cdc source: PostgreSQL change data
// capture over logical replication (the pgoutput plugin, through
// github.com/jackc/pglogrepl).
//
// Design. A Replicator owns one replication slot and appends what it
// decodes to weir's own durable log: the chunks of the source relation in
// weir's store (the same machinery as an input table's log), one chunk per
// PostgreSQL transaction, committed together with the LSN it ends at. The
// streaming tables reading the source read that log through
// connector/tablelog, so offsets, exactly-once re-reads and restarts work
// exactly as for an input table. First comes the initial snapshot: the
// table read in the snapshot CREATE_REPLICATION_SLOT ... EXPORT_SNAPSHOT
// exported, so that the stream starts exactly where the snapshot ends.
//
// Acknowledgement. The LSN confirmed to PostgreSQL is never 0 and never
// ahead of weir's log: only the end of a transaction whose rows are
// committed in weir's store (or that held no rows of the table) is
// confirmed. Every epoch that reads those rows re-reads them from weir's
// log after a crash, so PostgreSQL may release the WAL behind it. A
// transaction not yet in weir's log is sent again by PostgreSQL after a
// reconnect (it streams from the confirmed LSN); one already logged is
// recognised by its end LSN and skipped, so nothing is lost or doubled.
//
// Rows. Each change is one row: the table's columns (typed from the
// relation's type OIDs, sql/types), then _op and _lsn:
//
//	_op  text    'r' snapshot read, 'c' insert, 'u' update, 'd' delete,
//	             't' truncate (one row, every table column NULL)
//	_lsn bigint  the end LSN of the transaction (the snapshot's consistent
//	             point for 'r'): increasing, usable as SEQUENCE BY
//
// Debezium's op letters. An update that changes the key is a 'd' of the
// old key and a 'c' of the new row. A delete carries the old key
// (REPLICA IDENTITY DEFAULT) or the old row (FULL); with DEFAULT the other
// columns come from the last image weir holds for that key. A value
// PostgreSQL did not send because it is TOASTed and unchanged ('u') is
// filled from that image too (rebuilt from weir's log after a restart).
package pgcdc
