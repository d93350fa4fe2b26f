package checkpoint

import (
	"fmt"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// The identity check. A streaming table's checkpoint means something only
// for the state layout that wrote it: the plan's state fingerprint
// (planner.StreamPlan.StateFingerprint: input, watermark, window, keys,
// aggregates), stored with the table's definition in the catalog. CREATE
// OR REFRESH may keep the checkpoint of the table it replaces only when
// the new plan's fingerprint is the same; it then re-runs the kept epochs
// from the first under the new query, which needs every input row they
// read.

// CheckIdentity refuses to keep the checkpoint of streaming table name,
// written under stored, for a plan whose fingerprint is current.
func CheckIdentity(name, stored, current string) error {
	if stored == current {
		return nil
	}
	return sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "the new query of streaming table \"%s\" keeps different state than its checkpoint", name).
		WithDetail("Only output expressions, HAVING and options may change while keeping the checkpoint.").
		WithHint(fmt.Sprintf("To recompute it from the retained input, DROP STREAMING TABLE %s and create it again; REFRESH STREAMING TABLE %s FULL recomputes the current query.", name, name))
}

// CheckRerunnable refuses to re-run a kept checkpoint of committed epochs
// from the first when retention removed trimmed batches of its input.
func CheckRerunnable(name string, committed int, trimmed int64) error {
	if committed == 0 || trimmed <= 0 {
		return nil
	}
	return sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "cannot apply the new query of streaming table \"%s\" to the rows it already read: retention removed some of them", name).
		WithDetail("CREATE OR REFRESH re-runs the committed epochs under the new query, from the first.").
		WithHint(fmt.Sprintf("To recompute it from the retained input under the new query, DROP STREAMING TABLE %s and create it again.", name))
}
