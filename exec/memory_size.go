package exec

import (
	"math"
	"strconv"
	"strings"
)

// ParseMemorySize reads a memory size as PostgreSQL reads a memory
// setting: a number, possibly with a fraction, and an optional unit B, kB,
// MB, GB or TB (case-sensitive, as in PostgreSQL; spaces may separate
// them); without a unit in multiples of defaultUnit bytes (1024 for
// work_mem, whose unit is kB). A fraction is rounded to whole multiples of
// defaultUnit, as PostgreSQL rounds to the setting's unit.
func ParseMemorySize(s string, defaultUnit int64) (int64, bool) {
	s = strings.TrimSpace(s)
	j := 0
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
		j++
	}
	if j == 0 {
		return 0, false
	}
	num, err := strconv.ParseFloat(s[:j], 64)
	if err != nil || num < 0 {
		return 0, false
	}
	mult := defaultUnit
	switch strings.TrimSpace(s[j:]) {
	case "":
	case "B":
		mult = 1
	case "kB":
		mult = 1 << 10
	case "MB":
		mult = 1 << 20
	case "GB":
		mult = 1 << 30
	case "TB":
		mult = 1 << 40
	default:
		return 0, false
	}
	units := math.Round(num * float64(mult) / float64(defaultUnit))
	if units*float64(defaultUnit) > 1<<62 {
		return 0, false
	}
	return int64(units) * defaultUnit, true
}

// FormatMemorySize prints bytes as PostgreSQL's SHOW prints a memory
// setting: in the largest unit that divides it exactly.
func FormatMemorySize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
