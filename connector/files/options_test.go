package files

import (
	"strings"
	"testing"
	"time"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
)

func optSettings(kv ...string) []connector.Setting {
	var out []connector.Setting
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, connector.Setting{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

func TestParseOptionsDefaults(t *testing.T) {
	o, err := ParseOptions(optSettings("path", "/data/in", "format", "JSON"))
	if err != nil {
		t.Fatal(err)
	}
	if o.Path != "/data/in" || o.Format != "json" || !o.InferColumnTypes || o.EvolutionMode != EvolveAddNewColumns ||
		o.RescuedColumn != "_rescued_data" || o.Header || o.Delimiter != ',' || o.Quote != '"' || o.Escape != '"' ||
		!o.Recursive || o.MaxFilesPerTrigger != 1000 || o.MaxBytesPerTrigger != 0 {
		t.Fatalf("defaults: %+v", o)
	}
	// A schema given: evolution is off unless asked for.
	o, _ = ParseOptions(optSettings("path", "/d", "format", "csv", "schema", "a INT"))
	if o.EvolutionMode != EvolveNone {
		t.Fatalf("with a schema, mode %q", o.EvolutionMode)
	}
}

func TestParseOptionsNames(t *testing.T) {
	o, err := ParseOptions(optSettings(
		"PATH", "/d", "cloudFiles.format", "csv", "cloudFiles.schemaHints", "a int",
		"cloudfiles.inferColumnTypes", "false", "cloudFiles.schemaEvolutionMode", "RESCUE",
		"rescuedDataColumn", "_bad", "header", "true", "sep", `\t`, "quote", "'", "escape", `\\`,
		"nullValue", "NA", "fileNamePattern", "*.csv", "recursiveFileLookup", "false",
		"modifiedAfter", "2024-06-01T13:00:00", "modifiedBefore", "2025-01-01 00:00:00+02",
		"cloudFiles.maxFilesPerTrigger", "10", "cloudFiles.maxBytesPerTrigger", "10g",
		"connector", "files", "includeExistingFiles", "true"))
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != "csv" || o.SchemaHints != "a int" || o.InferColumnTypes || o.EvolutionMode != EvolveRescue ||
		o.RescuedColumn != "_bad" || !o.Header || o.Delimiter != '\t' || o.Quote != '\'' || o.Escape != '\\' ||
		o.NullValue != "NA" || o.PathGlobFilter != "*.csv" || o.Recursive || o.MaxFilesPerTrigger != 10 || o.MaxBytesPerTrigger != 10<<30 {
		t.Fatalf("parsed %+v", o)
	}
	if want := time.Date(2024, 6, 1, 13, 0, 0, 0, time.UTC); !o.ModifiedAfter.Equal(want) {
		t.Fatalf("modifiedAfter %v", o.ModifiedAfter)
	}
	if want := time.Date(2024, 12, 31, 22, 0, 0, 0, time.UTC); !o.ModifiedBefore.Equal(want) {
		t.Fatalf("modifiedBefore %v", o.ModifiedBefore)
	}
}

func TestParseOptionsErrors(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		code string
		in   string // in the message or hint
	}{
		{[]string{"format", "json"}, sqlerr.InvalidParameterValue, "path"},
		{[]string{"path", "/d"}, sqlerr.InvalidParameterValue, "format"},
		{[]string{"path", "/d", "format", "jsonl"}, sqlerr.InvalidParameterValue, "format"},
		{[]string{"path", "/d", "format", "avro"}, sqlerr.FeatureNotSupported, "avro"},
		{[]string{"path", "/d", "format", "json", "colour", "red"}, sqlerr.InvalidParameterValue, "maxFilesPerTrigger"},
		{[]string{"path", "/d", "format", "json", "cloudFiles.useNotifications", "true"}, sqlerr.FeatureNotSupported, "fsnotify"},
		{[]string{"path", "/d", "format", "json", "cloudFiles.queueUrl", "x"}, sqlerr.FeatureNotSupported, "queueUrl"},
		{[]string{"path", "/d", "format", "json", "cloudFiles.includeExistingFiles", "false"}, sqlerr.FeatureNotSupported, "modifiedAfter"},
		{[]string{"path", "/d", "format", "json", "cloudFiles.schemaLocation", "/x"}, sqlerr.FeatureNotSupported, "store"},
		{[]string{"path", "/d", "format", "json", "inferSchema", "true"}, sqlerr.FeatureNotSupported, "inferColumnTypes"},
		{[]string{"path", "s3://bucket/in", "format", "json"}, sqlerr.FeatureNotSupported, "--files-root"},
		{[]string{"path", "abfss://c@a.dfs.core.windows.net/in", "format", "json"}, sqlerr.FeatureNotSupported, "--files-root"},
		{[]string{"path", "gs://b/in", "format", "json"}, sqlerr.FeatureNotSupported, "--files-root"},
		{[]string{"path", "dbfs:/mnt/in", "format", "json"}, sqlerr.FeatureNotSupported, "--files-root"},
		{[]string{"path", "/Volumes/main/default/landing", "format", "json"}, sqlerr.FeatureNotSupported, "--files-root"},
		{[]string{"path", "/d", "format", "json", "maxFilesPerTrigger", "-1"}, sqlerr.InvalidParameterValue, "maxFilesPerTrigger"},
		{[]string{"path", "/d", "format", "json", "maxFilesPerTrigger", "many"}, sqlerr.InvalidParameterValue, "maxFilesPerTrigger"},
		{[]string{"path", "/d", "format", "json", "maxBytesPerTrigger", "10x"}, sqlerr.InvalidParameterValue, "maxBytesPerTrigger"},
		{[]string{"path", "/d", "format", "json", "schemaEvolutionMode", "sometimes"}, sqlerr.InvalidParameterValue, "schemaEvolutionMode"},
		{[]string{"path", "/d", "format", "json", "schemaEvolutionMode", "addNewColumnsWithTypeWidening"}, sqlerr.FeatureNotSupported, "addNewColumns"},
		{[]string{"path", "/d", "format", "csv", "delimiter", ";;"}, sqlerr.InvalidParameterValue, "delimiter"},
		{[]string{"path", "/d", "format", "csv", "header", "maybe"}, sqlerr.InvalidParameterValue, "header"},
		{[]string{"path", "/d", "format", "json", "modifiedAfter", "yesterday-ish"}, sqlerr.InvalidParameterValue, "modifiedAfter"},
		{[]string{"path", "/d", "format", "json", "pathGlobFilter", "*.{json"}, sqlerr.InvalidParameterValue, "pathGlobFilter"},
		{[]string{"path", "/d", "format", "json", "format", "csv"}, sqlerr.InvalidParameterValue, "more than once"},
		{[]string{"path", "/d", "format", "json", "connector", "kafka"}, sqlerr.InvalidParameterValue, "connector"},
	} {
		_, err := ParseOptions(optSettings(c.kv...))
		e := sqlerr.From(err)
		if err == nil || e.Code != c.code || !strings.Contains(e.Message+" "+e.Hint, c.in) {
			t.Errorf("%v: %v (%s, hint %q), want %s mentioning %q", c.kv, err, sqlerr.Code(err), srcHint(err), c.code, c.in)
		}
	}
}

func srcHint(err error) string {
	if err == nil {
		return ""
	}
	return sqlerr.From(err).Hint
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"1024": 1024, "512m": 512 << 20, "10g": 10 << 30, "10GB": 10 << 30, "1k": 1024, "2 mb": 2 << 20, "3KiB": 3 << 10, "7b": 7} {
		if got, ok := ParseByteSize(in); !ok || got != want {
			t.Errorf("ParseByteSize(%q) = %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "g", "-1g", "1.5g", "10x", "99999999999999999999"} {
		if _, ok := ParseByteSize(in); ok {
			t.Errorf("ParseByteSize(%q) accepted", in)
		}
	}
}
