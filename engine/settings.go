package engine

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// setting describes a run-time parameter (SET / SHOW / current_setting).
type setting struct {
	name     string // canonical spelling, as SHOW ALL prints it
	def      string
	reported bool // sent as ParameterStatus when it changes
	readOnly bool
	desc     string
	vartype  string
	category string
	check    func(v string) (string, error)
	// merge, when set, checks a value against the current one (DateStyle
	// keeps the half of the current value that v does not name).
	merge func(cur, v string) (string, error)
}

var settingList = []setting{
	{name: "application_name", def: "", reported: true, desc: "Sets the application name to be reported in statistics and logs.", vartype: "string", category: "Reporting and Logging / What to Log"},
	{name: "client_encoding", def: "UTF8", reported: true, desc: "Sets the client's character set encoding.", vartype: "string", category: "Client Connection Defaults / Locale and Formatting", check: checkEncoding},
	{name: "DateStyle", def: "ISO, MDY", reported: true, desc: "Sets the display format for date and time values.", vartype: "string", category: "Client Connection Defaults / Locale and Formatting", merge: mergeDateStyle},
	{name: "default_transaction_read_only", def: "off", reported: true, desc: "Sets the default read-only status of new transactions.", vartype: "bool", category: "Client Connection Defaults / Statement Behavior", check: checkBool},
	{name: "in_hot_standby", def: "off", reported: true, readOnly: true, desc: "Shows whether hot standby is currently active.", vartype: "bool", category: "Preset Options"},
	{name: "integer_datetimes", def: "on", reported: true, readOnly: true, desc: "Shows whether datetimes are integer based.", vartype: "bool", category: "Preset Options"},
	{name: "IntervalStyle", def: "postgres", reported: true, desc: "Sets the display format for interval values.", vartype: "enum", category: "Client Connection Defaults / Locale and Formatting", check: checkIntervalStyle},
	{name: "is_superuser", def: "off", reported: true, readOnly: true, desc: "Shows whether the current user is a superuser.", vartype: "bool", category: "Preset Options"},
	{name: "server_encoding", def: "UTF8", reported: true, readOnly: true, desc: "Shows the server (database) character set encoding.", vartype: "string", category: "Preset Options"},
	{name: "server_version", def: ServerVersion, reported: true, readOnly: true, desc: "Shows the server version.", vartype: "string", category: "Preset Options"},
	{name: "session_authorization", def: "", reported: true, readOnly: true, desc: "Sets the session user name.", vartype: "string", category: "Preset Options"},
	{name: "role", def: "none", readOnly: true, desc: "Sets the current role.", vartype: "string", category: "Preset Options"},
	{name: "standard_conforming_strings", def: "on", reported: true, desc: "Causes '...' strings to treat backslashes literally.", vartype: "bool", category: "Version and Platform Compatibility", check: checkStandardStrings},
	{name: "TimeZone", def: "UTC", reported: true, desc: "Sets the time zone for displaying and interpreting time stamps.", vartype: "string", category: "Client Connection Defaults / Locale and Formatting", check: checkTimeZone},
	{name: "server_version_num", def: "150000", readOnly: true, desc: "Shows the server version as an integer.", vartype: "integer", category: "Preset Options"},
	{name: "search_path", def: "\"$user\", public", desc: "Sets the schema search order for names that are not schema-qualified.", vartype: "string", category: "Client Connection Defaults / Statement Behavior"},
	{name: "extra_float_digits", def: "1", desc: "Sets the number of digits displayed for floating-point values.", vartype: "integer", category: "Client Connection Defaults / Locale and Formatting", check: checkInt(-15, 3)},
	{name: "transaction_isolation", def: "read committed", desc: "Sets the current transaction's isolation level.", vartype: "enum", category: "Client Connection Defaults / Statement Behavior"},
	{name: "default_transaction_isolation", def: "read committed", desc: "Sets the transaction isolation level of each new transaction.", vartype: "enum", category: "Client Connection Defaults / Statement Behavior"},
	{name: "transaction_read_only", def: "off", desc: "Sets the current transaction's read-only status.", vartype: "bool", category: "Client Connection Defaults / Statement Behavior", check: checkBool},
	{name: "statement_timeout", def: "0", desc: "Sets the maximum allowed duration of any statement.", vartype: "integer", category: "Client Connection Defaults / Statement Behavior", check: checkTimeout("statement_timeout")},
	{name: "lock_timeout", def: "0", desc: "Sets the maximum allowed duration of any wait for a lock.", vartype: "integer", category: "Client Connection Defaults / Statement Behavior"},
	{name: "idle_in_transaction_session_timeout", def: "0", desc: "Sets the maximum allowed idle time between queries, when in a transaction.", vartype: "integer", category: "Client Connection Defaults / Statement Behavior", check: checkTimeout("idle_in_transaction_session_timeout")},
	{name: "idle_session_timeout", def: "0", desc: "Sets the maximum allowed idle time between queries, when not in a transaction.", vartype: "integer", category: "Client Connection Defaults / Statement Behavior", check: checkTimeout("idle_session_timeout")},
	{name: "client_min_messages", def: "notice", desc: "Sets the message levels that are sent to the client.", vartype: "enum", category: "Client Connection Defaults / Statement Behavior"},
	{name: "max_identifier_length", def: "63", readOnly: true, desc: "Shows the maximum identifier length.", vartype: "integer", category: "Preset Options"},
	{name: "max_index_keys", def: "32", readOnly: true, desc: "Shows the maximum number of index keys.", vartype: "integer", category: "Preset Options"},
	{name: "lc_collate", def: "C.UTF-8", readOnly: true, desc: "Shows the collation order locale.", vartype: "string", category: "Preset Options"},
	{name: "lc_ctype", def: "C.UTF-8", readOnly: true, desc: "Shows the character classification and case conversion locale.", vartype: "string", category: "Preset Options"},
	{name: "lc_messages", def: "C", desc: "Sets the language in which messages are displayed.", vartype: "string", category: "Client Connection Defaults / Locale and Formatting"},
	{name: "lc_monetary", def: "C", desc: "Sets the locale for formatting monetary amounts.", vartype: "string", category: "Client Connection Defaults / Locale and Formatting"},
	{name: "lc_numeric", def: "C", desc: "Sets the locale for formatting numbers.", vartype: "string", category: "Client Connection Defaults / Locale and Formatting"},
	{name: "lc_time", def: "C", desc: "Sets the locale for formatting date and time values.", vartype: "string", category: "Client Connection Defaults / Locale and Formatting"},
	{name: "bytea_output", def: "hex", desc: "Sets the output format for bytea.", vartype: "enum", category: "Client Connection Defaults / Statement Behavior", check: checkByteaOutput},
	// psql's \password and libpq's PQencryptPasswordConn read this to
	// choose the verifier they compute on the client.
	{name: "password_encryption", def: "scram-sha-256", desc: "Chooses the algorithm for encrypting passwords.", vartype: "enum", category: "Connections and Authentication / Authentication", check: checkPasswordEncryption},
	{name: "superuser_reserved_connections", def: "3", readOnly: true, desc: "Sets the number of connection slots reserved for superusers.", vartype: "integer", category: "Connections and Authentication / Connection Settings"},
	{name: "authentication_timeout", def: "1min", readOnly: true, desc: "Sets the maximum allowed time to complete client authentication.", vartype: "integer", category: "Connections and Authentication / Authentication"},
	{name: "max_connections", def: "100", readOnly: true, desc: "Sets the maximum number of concurrent connections.", vartype: "integer", category: "Connections and Authentication / Connection Settings"},
	{name: "block_size", def: "8192", readOnly: true, desc: "Shows the size of a disk block.", vartype: "integer", category: "Preset Options"},
	{name: "synchronous_commit", def: "on", desc: "Sets the current transaction's synchronization level.", vartype: "enum", category: "Write-Ahead Log / Settings"},
	{name: "row_security", def: "on", desc: "Enable row security.", vartype: "bool", category: "Client Connection Defaults / Statement Behavior", check: checkBool},
	{name: "jit", def: "off", desc: "Allow JIT compilation.", vartype: "bool", category: "Query Tuning / Other Planner Options"},
	{name: "work_mem", def: "4MB", desc: "Sets the maximum memory to be used for query workspaces.", vartype: "integer", category: "Resource Usage / Memory", check: checkWorkMem},
	{name: "escape_string_warning", def: "on", desc: "Warn about backslash escapes in ordinary string literals.", vartype: "bool", category: "Version and Platform Compatibility"},
	{name: "timezone_abbreviations", def: "Default", desc: "Selects a file of time zone abbreviations.", vartype: "string", category: "Client Connection Defaults / Locale and Formatting"},
	{name: "default_text_search_config", def: "pg_catalog.english", desc: "Sets default text search configuration.", vartype: "string", category: "Client Connection Defaults / Locale and Formatting"},
	{name: "geqo", def: "on", desc: "Enables genetic query optimization.", vartype: "bool", category: "Query Tuning / Genetic Query Optimizer"},
}

var settingsByName = func() map[string]*setting {
	m := map[string]*setting{}
	for i := range settingList {
		m[strings.ToLower(settingList[i].name)] = &settingList[i]
	}
	return m
}()

func lookupSetting(name string) (*setting, bool) {
	s, ok := settingsByName[strings.ToLower(name)]
	return s, ok
}

func unknownSetting(name string) error {
	return sqlerr.New(sqlerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
}

func checkBool(v string) (string, error) {
	switch strings.ToLower(v) {
	case "on", "true", "yes", "1", "t":
		return "on", nil
	case "off", "false", "no", "0", "f":
		return "off", nil
	}
	return "", sqlerr.New(sqlerr.InvalidParameterValue, "parameter requires a Boolean value")
}

func checkEncoding(v string) (string, error) {
	switch strings.ToUpper(strings.ReplaceAll(v, "-", "")) {
	case "UTF8", "UNICODE":
		return "UTF8", nil
	}
	return "", sqlerr.New(sqlerr.FeatureNotSupported, "conversion between %s and UTF8 is not supported", v)
}

func mergeDateStyle(cur, v string) (string, error) {
	cs, co, _, _ := types.ParseDateStyle(cur, types.DateISO, types.OrderMDY)
	_, _, canon, ok := types.ParseDateStyle(v, cs, co)
	if !ok {
		return "", invalidValue("DateStyle", v)
	}
	return canon, nil
}

func checkIntervalStyle(v string) (string, error) {
	if _, ok := types.ParseIntervalStyle(strings.ToLower(v)); ok {
		return strings.ToLower(v), nil
	}
	return "", invalidValue("intervalstyle", v).WithHint("Available values: postgres, postgres_verbose, sql_standard, iso_8601.")
}

func checkByteaOutput(v string) (string, error) {
	switch strings.ToLower(v) {
	case "hex", "escape":
		return strings.ToLower(v), nil
	}
	return "", invalidValue("bytea_output", v).WithHint("Available values: escape, hex.")
}

// invalidValue is PostgreSQL's error for a setting value it rejects.
func invalidValue(name, v string) *sqlerr.Error {
	return sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
}

func checkStandardStrings(v string) (string, error) {
	b, err := checkBool(v)
	if err != nil {
		return "", err
	}
	if b == "off" {
		return "", sqlerr.New(sqlerr.FeatureNotSupported, "standard_conforming_strings cannot be turned off in weir")
	}
	return b, nil
}

func checkTimeZone(v string) (string, error) {
	if _, err := loadLocation(v); err != nil {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", v)
	}
	return v, nil
}

// loadLocation resolves a TimeZone value: a zone name, UTC, or a POSIX-style
// numeric offset (PostgreSQL treats '+05' in SET TIME ZONE as 5 hours east).
func loadLocation(v string) (*time.Location, error) {
	switch strings.ToLower(v) {
	case "utc", "gmt", "z", "zulu", "etc/utc", "universal":
		return time.UTC, nil
	case "localtime", "local":
		return time.Local, nil
	}
	if h, err := strconv.ParseFloat(v, 64); err == nil {
		return time.FixedZone(v, int(h*3600)), nil
	}
	return time.LoadLocation(v)
}

func checkInt(lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for integer parameter: \"%s\"", v)
		}
		if n < lo || n > hi {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "%d is outside the valid range for parameter (%d .. %d)", n, lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

func sortedSettings() []*setting {
	out := make([]*setting, len(settingList))
	for i := range settingList {
		out[i] = &settingList[i]
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].name) < strings.ToLower(out[j].name) })
	return out
}
