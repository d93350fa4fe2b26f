package engine

import "testing"

// TestWeirCatalogOIDs: every weir_catalog relation has its own fixed OID
// (two relations built apart once shared one, and the first to be looked
// up answered for both).
func TestWeirCatalogOIDs(t *testing.T) {
	seen := map[uint32]string{progressOID: "streaming_progress", expectationsOID: "expectations"}
	for _, r := range monitorRelations() {
		if other, ok := seen[r.OID]; ok {
			t.Errorf("weir_catalog.%s and weir_catalog.%s share OID %d", r.Name, other, r.OID)
		}
		seen[r.OID] = r.Name
	}
}
