package kafka

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Options are a Kafka source's options, typed. Names are Databricks'
// read_kafka ones (bootstrapServers, subscribe, subscribePattern, assign,
// startingOffsets, startingTimestamp, maxOffsetsPerTrigger, and the
// kafka.-prefixed client settings), with RisingWave's names accepted too
// (topic, bootstrap_servers / properties.bootstrap.server, startup /
// scan.startup.mode, scan.startup.timestamp.millis).
type Options struct {
	Brokers []string
	// Exactly one of Topics, Pattern and Assign says what is read.
	Topics  []string
	Pattern string
	Assign  map[string][]int32

	// Starting is where partitions read first start: "earliest",
	// "latest" (the default, as Databricks'), or "timestamp" (the first
	// offset at or after StartingMillis). Partitions that appear later
	// start at their earliest offset (Spark's rule: nothing of a new
	// partition is skipped).
	Starting       string
	StartingMillis int64

	// Format of a message's value: "raw" (the read_kafka columns), or
	// "json" / "csv" decoded into declared columns (with the rescued
	// column for what does not fit).
	Format    string
	Delimiter byte // csv

	// ReadCommitted: read only committed transactions' records (the
	// default; isolation = 'read_uncommitted' reads all).
	ReadCommitted bool

	// MaxOffsetsPerTrigger bounds the records one Read takes (0: all
	// buffered).
	MaxOffsetsPerTrigger int64

	// IdleTimeout: a partition with no record for this long leaves the
	// watermark hint (default 30s), so a quiet partition does not hold it.
	IdleTimeout time.Duration

	// SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and TLS.
	SASLMechanism, SASLUser, SASLPassword string
	TLS                                   bool
}

// option names, lowercased, to the canonical name.
var optionNames = map[string]string{
	"bootstrapservers":              "bootstrapServers",
	"kafka.bootstrap.servers":       "bootstrapServers",
	"bootstrap_servers":             "bootstrapServers",
	"properties.bootstrap.server":   "bootstrapServers",
	"properties.bootstrap.servers":  "bootstrapServers",
	"subscribe":                     "subscribe",
	"topic":                         "subscribe",
	"subscribepattern":              "subscribePattern",
	"assign":                        "assign",
	"startingoffsets":               "startingOffsets",
	"startup":                       "startingOffsets",
	"scan.startup.mode":             "startingOffsets",
	"startingtimestamp":             "startingTimestamp",
	"scan.startup.timestamp.millis": "startingTimestamp",
	"maxoffsetspertrigger":          "maxOffsetsPerTrigger",
	"format":                        "format",
	"delimiter":                     "delimiter",
	"isolation":                     "isolation",
	"kafka.isolation.level":         "isolation",
	"idle_timeout":                  "idleTimeout",
	"idletimeout":                   "idleTimeout",
	"kafka.sasl.mechanism":          "sasl.mechanism",
	"properties.sasl.mechanism":     "sasl.mechanism",
	"kafka.sasl.username":           "sasl.username",
	"properties.sasl.username":      "sasl.username",
	"kafka.sasl.password":           "sasl.password",
	"properties.sasl.password":      "sasl.password",
	"kafka.security.protocol":       "security.protocol",
	"properties.security.protocol":  "security.protocol",
	"rescueddatacolumn":             "rescuedDataColumn",
	"failondataloss":                "failOnDataLoss",
	"includeheaders":                "includeHeaders",
	"connector":                     "connector",
}

// SecretOptions are the options that may hold a credential: the engine
// resolves secret('name') in them, and SHOW SOURCES never shows them.
var SecretOptions = []string{"sasl.password"}

// Canonical is an option's canonical name, "" when it is not a Kafka
// source option.
func Canonical(name string) string { return optionNames[strings.ToLower(name)] }

func bad(name, value, hint string) error {
	return sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"%s\": \"%s\"", name, value).WithHint(hint)
}

// ParseOptions checks a Kafka source's options (names as written) and
// types them. A missing broker list or topic, two topic selections, an
// unknown option or an ill-typed value is 22023 with a hint.
func ParseOptions(m map[string]string) (Options, error) {
	o := Options{Starting: "latest", Format: "raw", ReadCommitted: true, IdleTimeout: 30 * time.Second, Delimiter: ','}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	selections := 0
	for _, k := range names {
		v := m[k]
		c := Canonical(k)
		switch c {
		case "":
			return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized Kafka option \"%s\"", k).
				WithHint("Options: bootstrapServers, subscribe (or topic), subscribePattern, assign, startingOffsets (or startup), startingTimestamp, maxOffsetsPerTrigger, format, delimiter, isolation, idle_timeout, kafka.sasl.mechanism, kafka.sasl.username, kafka.sasl.password, kafka.security.protocol.")
		case "connector", "failOnDataLoss", "includeHeaders":
			// failOnDataLoss: a logged range Kafka no longer holds always
			// fails the read (exactly-once cannot be kept); headers are
			// always in the raw columns.
		case "bootstrapServers":
			for _, b := range strings.Split(v, ",") {
				if b = strings.TrimSpace(b); b != "" {
					o.Brokers = append(o.Brokers, b)
				}
			}
		case "subscribe":
			selections++
			for _, t := range strings.Split(v, ",") {
				if t = strings.TrimSpace(t); t != "" {
					o.Topics = append(o.Topics, t)
				}
			}
			if len(o.Topics) == 0 {
				return Options{}, bad(k, v, "Name one or more topics, separated by commas.")
			}
		case "subscribePattern":
			selections++
			if _, err := regexp.Compile(v); err != nil || v == "" {
				return Options{}, bad(k, v, "Use a regular expression matching topic names.")
			}
			o.Pattern = v
		case "assign":
			selections++
			var a map[string][]int32
			if err := json.Unmarshal([]byte(v), &a); err != nil || len(a) == 0 {
				return Options{}, bad(k, v, `Use a JSON object of topics and partitions, such as '{"orders":[0,1]}'.`)
			}
			o.Assign = a
		case "startingOffsets":
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "earliest":
				o.Starting = "earliest"
			case "latest":
				o.Starting = "latest"
			case "timestamp":
				o.Starting = "timestamp"
			default:
				return Options{}, bad(k, v, "Use earliest, latest or timestamp (with startingTimestamp).")
			}
		case "startingTimestamp":
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < 0 {
				return Options{}, bad(k, v, "Use milliseconds since 1970-01-01 UTC.")
			}
			o.StartingMillis = n
			if o.Starting != "earliest" && o.Starting != "timestamp" {
				o.Starting = "timestamp"
			}
		case "maxOffsetsPerTrigger":
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n <= 0 {
				return Options{}, bad(k, v, "Use a positive integer.")
			}
			o.MaxOffsetsPerTrigger = n
		case "format":
			switch strings.ToLower(v) {
			case "raw", "bytes", "json", "csv":
				o.Format = strings.ToLower(v)
				if o.Format == "bytes" {
					o.Format = "raw"
				}
			default:
				return Options{}, bad(k, v, "Formats: raw (key, value and the record's metadata), json, csv.")
			}
		case "delimiter":
			if len(v) != 1 {
				return Options{}, bad(k, v, "Use one character.")
			}
			o.Delimiter = v[0]
		case "isolation":
			switch strings.ToLower(v) {
			case "read_committed":
				o.ReadCommitted = true
			case "read_uncommitted":
				o.ReadCommitted = false
			default:
				return Options{}, bad(k, v, "Use read_committed or read_uncommitted.")
			}
		case "idleTimeout":
			d, err := time.ParseDuration(strings.ReplaceAll(v, " ", ""))
			if err != nil || d < 0 {
				return Options{}, bad(k, v, "Use a duration such as '30s' or '1m'.")
			}
			o.IdleTimeout = d
		case "sasl.mechanism":
			switch strings.ToUpper(v) {
			case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
				o.SASLMechanism = strings.ToUpper(v)
			default:
				return Options{}, bad(k, v, "Mechanisms: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512.")
			}
		case "sasl.username":
			o.SASLUser = v
		case "sasl.password":
			o.SASLPassword = v
		case "security.protocol":
			switch strings.ToUpper(v) {
			case "PLAINTEXT", "SASL_PLAINTEXT":
			case "SSL", "SASL_SSL":
				o.TLS = true
			default:
				return Options{}, bad(k, v, "Protocols: PLAINTEXT, SASL_PLAINTEXT, SSL, SASL_SSL.")
			}
		case "rescuedDataColumn":
			// Read by the engine with the declared columns.
		}
	}
	if len(o.Brokers) == 0 {
		return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "option \"bootstrapServers\" is required").
			WithHint("Name the brokers, such as bootstrapServers => '127.0.0.1:9092'.")
	}
	if selections != 1 {
		return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "exactly one of the options \"subscribe\", \"subscribePattern\" and \"assign\" is required").
			WithHint("For example subscribe => 'orders'.")
	}
	if o.SASLMechanism != "" && o.SASLUser == "" {
		return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "option \"kafka.sasl.username\" is required with kafka.sasl.mechanism")
	}
	return o, nil
}
