package files

import (
	"strings"
)

// Schema evolution (schemaEvolutionMode addNewColumns, Databricks'
// default when the schema is inferred). A file bringing columns the
// schema lacks is met when it is first decoded. With the engine's
// restart (Tuning.StopOnNewColumns), as Databricks' stream stops on
// UnknownFieldException and its job restarts it:
//
//  1. the file is not admitted; the merged schema (the served one with
//     the new columns appended, version+1) is recorded in the log, in
//     the same transaction as the files admitted before it, and is
//     pending (SchemaChanged);
//  2. nothing more is admitted while it is pending (the batches already
//     in the log are still served, so the epochs before the file
//     commit);
//  3. the engine makes the pending version the table's definition and
//     reopens the source on it: the file is admitted under the new
//     version, its rows carrying the new columns' values.
//
// A crash anywhere in between is safe: the log is the truth. Before
// step 1's commit nothing happened; after it, reopening on the old
// version finds the new one pending again (openWith), and the file was
// never entered in the log, so it is read once, under the new version.
//
// Each log entry records the version it was decoded under, and is
// decoded under that version again when re-read (schemaFor), so that a
// re-run epoch sees exactly the rows it saw before; the engine fits
// them to the wider plan (the new columns NULL).

// extends reports whether s is base with columns appended (the same
// rescued column): a version evolution recorded from base.
func extends(base, s Schema) bool {
	if len(s.Columns) < len(base.Columns) || s.Rescued != base.Rescued {
		return false
	}
	for i, c := range base.Columns {
		d := s.Columns[i]
		if !strings.EqualFold(c.Name, d.Name) || c.Type.OID != d.Type.OID || c.Type.Typmod != d.Type.Typmod {
			return false
		}
	}
	return true
}

// sameSchema reports whether a and b have the same columns.
func sameSchema(a, b Schema) bool {
	return len(a.Columns) == len(b.Columns) && extends(a, b)
}

// schemaFor is the schema a log entry decoded under version v is decoded
// under again: that version as recorded, when the served schema extends
// it; else (a version from before CREATE OR REFRESH redefined the
// source) the served one.
func (s *Source) schemaFor(v int, served Schema) Schema {
	if v == served.Version || v <= 0 {
		return served
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.versions {
		if r.Version == v && extends(r, served) {
			return r
		}
	}
	return served
}

// holding reports whether admission waits for the source to be reopened
// on a pending schema version.
func (s *Source) holdingLocked() bool {
	return s.cfg.stopOnNew && s.pending != nil && s.opts.EvolutionMode == EvolveAddNewColumns
}
