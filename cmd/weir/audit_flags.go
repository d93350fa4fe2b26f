package main

import (
	"fmt"
	"time"

	"github.com/weir-sql/weir/engine"
)

// auditLogBounds reads --audit-log-retention and --audit-log-max-rows into
// the engine's terms: 0 on the command line is "no limit", which the
// engine spells as a negative number (its 0 is the default).
func auditLogBounds(retention string, maxRows int) (time.Duration, int, error) {
	age, err := engine.ParseRetention(retention)
	if err != nil {
		return 0, 0, fmt.Errorf("--audit-log-retention: %s", sqlerrMessage(err))
	}
	switch {
	case maxRows == 0:
		maxRows = -1
	case maxRows < 0:
		return 0, 0, fmt.Errorf("--audit-log-max-rows must be 0 (no limit) or a positive number, not %d", maxRows)
	}
	return age, maxRows, nil
}
