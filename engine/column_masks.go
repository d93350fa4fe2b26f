package engine

import "github.com/weir-sql/weir/planner"

// columnMasks adds the masks of rel's columns that apply to the reader
// to sec.Masks (ScanSecurity, row_security.go). None yet.
func (v *catalogView) columnMasks(rel *planner.Relation, sec *planner.ScanSecurity) error {
	return nil
}
