package expr

import (
	"strings"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func timeNowUs() int64 { return time.Now().UnixMicro() }

// zoneByName resolves a time zone name as AT TIME ZONE / timezone() accept.
func zoneByName(name string) (*time.Location, error) {
	switch strings.ToLower(name) {
	case "utc", "gmt", "z", "zulu", "etc/utc":
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "time zone \"%s\" not recognized", name)
	}
	return loc, nil
}
