// Package duckdbcheck holds the test that reads a files sink's output
// with DuckDB (github.com/duckdb/duckdb-go, cgo): an independent reader of
// the Parquet files and the Hive-style folders. It is a package of its
// own so that only this test binary links DuckDB's library, not the
// engine's tests.
package duckdbcheck
