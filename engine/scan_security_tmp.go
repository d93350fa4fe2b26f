package engine

import "github.com/weir-sql/weir/planner"

// ScanSecurity implements planner.SecurityCatalog with column masks only.
// TEMPORARY: the row-level security branch defines ScanSecurity in
// row_security.go (row filters, then v.columnMasks); this file is deleted
// when the two branches merge.
func (v *catalogView) ScanSecurity(rel *planner.Relation) (planner.ScanSecurity, error) {
	var sec planner.ScanSecurity
	err := v.columnMasks(rel, &sec)
	return sec, err
}
