package engine

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// statement_timeout, idle_in_transaction_session_timeout and
// idle_session_timeout are kept as PostgreSQL shows them ("0", "250ms",
// "1s", "1min"); the wire layer enforces them through Session.Timeouts.

// Timeouts implements wire.Session. The wire layer asks before every
// message and statement, so the parsed values are kept until a SET of a
// timeout (assign) drops them.
func (s *Session) Timeouts() wire.Timeouts {
	if s.timeouts == nil {
		s.timeouts = &wire.Timeouts{
			Statement:         timeoutOf(s.settings["statement_timeout"]),
			IdleInTransaction: timeoutOf(s.settings["idle_in_transaction_session_timeout"]),
			IdleSession:       timeoutOf(s.settings["idle_session_timeout"]),
		}
	}
	return *s.timeouts
}

// timeoutOf reads a value checkTimeout produced.
func timeoutOf(v string) time.Duration {
	if v == "" || v == "0" {
		return 0
	}
	ms, err := parseMilliseconds(v)
	if err != nil {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// timeUnits are PostgreSQL's units of a time setting whose base unit is the
// millisecond, largest first, as GUC output picks them.
var timeUnits = []struct {
	name string
	ms   float64
}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}, {"ms", 1}, {"us", 0.001}}

// parseMilliseconds reads an integer or decimal number with an optional
// unit (ms when none), rounded to whole milliseconds as PostgreSQL's
// parse_int does.
func parseMilliseconds(v string) (int64, error) {
	t := strings.TrimSpace(v)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == '-' || t[i] == '+' || t[i] == 'e' || t[i] == 'E') {
		if (t[i] == 'e' || t[i] == 'E') && (i+1 >= len(t) || !(t[i+1] >= '0' && t[i+1] <= '9' || t[i+1] == '-' || t[i+1] == '+')) {
			break
		}
		i++
	}
	num, err := strconv.ParseFloat(t[:i], 64)
	if err != nil {
		return 0, errBadValue
	}
	unit := strings.TrimSpace(t[i:])
	mult := 1.0
	if unit != "" {
		found := false
		for _, u := range timeUnits {
			if u.name == unit {
				mult, found = u.ms, true
			}
		}
		if !found {
			return 0, errBadUnit
		}
	}
	ms := math.RoundToEven(num * mult)
	if math.IsNaN(ms) || ms > math.MaxInt64/2 || ms < math.MinInt64/2 {
		return 0, errOutOfRangeValue
	}
	return int64(ms), nil
}

type settingValueError string

func (e settingValueError) Error() string { return string(e) }

const (
	errBadValue        settingValueError = "bad value"
	errBadUnit         settingValueError = "bad unit"
	errOutOfRangeValue settingValueError = "out of range"
)

// checkTimeout validates a value of the timeout setting name and returns
// it as SHOW prints it.
func checkTimeout(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		ms, err := parseMilliseconds(v)
		if err == errBadUnit {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).
				WithHint(`Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`)
		}
		if err != nil {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
		}
		if ms > math.MaxInt32 || ms < math.MinInt32 {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).
				WithHint("Value exceeds integer range.")
		}
		if ms < 0 {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "%d ms is outside the valid range for parameter \"%s\" (0 .. 2147483647)", ms, name)
		}
		return formatMilliseconds(ms), nil
	}
}

// formatMilliseconds prints a value in the largest unit that divides it,
// as SHOW does: 0, 250ms, 1s, 90s, 1min, 1h, 1d.
func formatMilliseconds(ms int64) string {
	if ms == 0 {
		return "0"
	}
	for _, u := range timeUnits[:5] {
		if ms%int64(u.ms) == 0 {
			return strconv.FormatInt(ms/int64(u.ms), 10) + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// startupSettings lists the settings a StartupMessage gives: its
// parameters other than user, database and replication, then the
// "-c name=value" and "--name=value" switches of its options parameter
// (libpq's options=, PGOPTIONS), whose values may escape spaces with a
// backslash as PostgreSQL's pg_split_opts allows.
func startupSettings(params map[string]string) [][2]string {
	var out [][2]string
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	// A stable order: settings that check each other (none yet) and tests
	// see the same outcome every time.
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "user", "database", "replication", "options":
			continue
		}
		out = append(out, [2]string{k, params[k]})
	}
	words := splitOptions(params["options"])
	for i := 0; i < len(words); i++ {
		w := words[i]
		var kv string
		switch {
		case w == "-c" && i+1 < len(words):
			i++
			kv = words[i]
		case strings.HasPrefix(w, "-c"):
			kv = w[2:]
		case strings.HasPrefix(w, "--"):
			kv = w[2:]
		default:
			continue
		}
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		out = append(out, [2]string{strings.ReplaceAll(name, "-", "_"), value})
	}
	return out
}

// splitOptions splits at unescaped whitespace; a backslash takes the next
// character literally.
func splitOptions(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// pgSettingsValue is a setting as pg_settings shows it: the timeouts as a
// number of milliseconds with unit ms, others as SHOW prints them.
func pgSettingsValue(st *setting, v string) (value, unit string) {
	switch st.name {
	case "statement_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout":
		return strconv.FormatInt(timeoutOf(v).Milliseconds(), 10), "ms"
	}
	return v, ""
}
