package files

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// The options of read_files and CREATE SOURCE ... WITH (connector =
// 'files'), in Databricks' names (read_files' and Auto Loader's pages).
// Names are case-insensitive and may carry Auto Loader's "cloudFiles."
// prefix (cloudFiles.format, cloudFiles.schemaHints, ...): the same
// statement then works in both systems.

// optionNames maps a lower-cased option name (prefix removed) to the
// canonical name its errors use.
var optionNames = map[string]string{
	"path":                 "path",
	"connector":            "connector",
	"format":               "format",
	"schema":               "schema",
	"schemahints":          "schemaHints",
	"infercolumntypes":     "inferColumnTypes",
	"schemaevolutionmode":  "schemaEvolutionMode",
	"rescueddatacolumn":    "rescuedDataColumn",
	"header":               "header",
	"delimiter":            "delimiter",
	"sep":                  "delimiter",
	"quote":                "quote",
	"escape":               "escape",
	"nullvalue":            "nullValue",
	"pathglobfilter":       "pathGlobFilter",
	"filenamepattern":      "pathGlobFilter",
	"recursivefilelookup":  "recursiveFileLookup",
	"modifiedafter":        "modifiedAfter",
	"modifiedbefore":       "modifiedBefore",
	"maxfilespertrigger":   "maxFilesPerTrigger",
	"maxbytespertrigger":   "maxBytesPerTrigger",
	"includeexistingfiles": "includeExistingFiles",
	"ignorecorruptfiles":   "ignoreCorruptFiles",
}

// optionSpec types the canonical options (connector's typed options give
// every connector the same 22023 for an ill-typed value).
var optionSpec = connector.OptionSpec{Options: []connector.Option{
	{Name: "path", Kind: connector.StringOption},
	{Name: "connector", Kind: connector.StringOption},
	{Name: "format", Kind: connector.StringOption},
	{Name: "schema", Kind: connector.StringOption},
	{Name: "schemaHints", Kind: connector.StringOption},
	{Name: "inferColumnTypes", Kind: connector.BoolOption},
	{Name: "schemaEvolutionMode", Kind: connector.StringOption},
	{Name: "rescuedDataColumn", Kind: connector.StringOption},
	{Name: "header", Kind: connector.BoolOption},
	{Name: "delimiter", Kind: connector.StringOption},
	{Name: "quote", Kind: connector.StringOption},
	{Name: "escape", Kind: connector.StringOption},
	{Name: "nullValue", Kind: connector.StringOption},
	{Name: "pathGlobFilter", Kind: connector.StringOption},
	{Name: "recursiveFileLookup", Kind: connector.BoolOption},
	{Name: "modifiedAfter", Kind: connector.StringOption},
	{Name: "modifiedBefore", Kind: connector.StringOption},
	{Name: "maxFilesPerTrigger", Kind: connector.IntOption, Hint: "Use a positive number of files."},
	{Name: "maxBytesPerTrigger", Kind: connector.StringOption},
	{Name: "includeExistingFiles", Kind: connector.BoolOption},
	{Name: "ignoreCorruptFiles", Kind: connector.BoolOption},
}}

// unsupportedOptions are Databricks options weir does not have, with what
// to do instead: naming one is 0A000 rather than "unknown", so that a
// statement copied from Databricks says what differs.
var unsupportedOptions = map[string]string{
	"usenotifications":                   "weir watches the folder itself (fsnotify, plus re-listing); leave the option out.",
	"usemanagedfileevents":               "weir watches the folder itself (fsnotify, plus re-listing); leave the option out.",
	"queueurl":                           "weir reads local folders and needs no notification queue; leave the option out.",
	"queuename":                          "weir reads local folders and needs no notification queue; leave the option out.",
	"region":                             "weir reads local folders under --files-root; leave the cloud options out.",
	"subscriptionid":                     "weir reads local folders under --files-root; leave the cloud options out.",
	"tenantid":                           "weir reads local folders under --files-root; leave the cloud options out.",
	"clientid":                           "weir reads local folders under --files-root; leave the cloud options out.",
	"clientsecret":                       "weir reads local folders under --files-root; leave the cloud options out.",
	"connectionstring":                   "weir reads local folders under --files-root; leave the cloud options out.",
	"resourcegroup":                      "weir reads local folders under --files-root; leave the cloud options out.",
	"resourcetag":                        "weir reads local folders under --files-root; leave the cloud options out.",
	"projectid":                          "weir reads local folders under --files-root; leave the cloud options out.",
	"client":                             "weir reads local folders under --files-root; leave the cloud options out.",
	"fetchparallelism":                   "weir reads local folders under --files-root; leave the cloud options out.",
	"pathrewrites":                       "weir reads local folders under --files-root; leave the cloud options out.",
	"backfillinterval":                   "weir re-lists the folder regularly by itself; leave the option out.",
	"useincrementallisting":              "weir lists the whole folder each time; leave the option out.",
	"usestrictglobber":                   "weir's globs match whole path components (Databricks' strict globber); leave the option out.",
	"allowoverwrites":                    "weir reads each file once; a file changed after it was read is reported, not read again. Write new data under a new name.",
	"cleansource":                        "weir leaves processed files in place; remove them yourself once read (see the processed-file log).",
	"cleansource.retentionduration":      "weir leaves processed files in place; remove them yourself once read.",
	"cleansource.movedestination":        "weir leaves processed files in place; move them yourself once read.",
	"maxfileage":                         "Use modifiedAfter to leave old files out.",
	"partitioncolumns":                   "weir does not infer partition columns from folder names; read _metadata.file_path instead.",
	"schemalocation":                     "weir keeps the schema and its versions in its own store; leave the option out.",
	"checkpointlocation":                 "weir keeps the checkpoint in its own store; leave the option out.",
	"validateoptions":                    "weir always checks options; leave the option out.",
	"ignoremissingfiles":                 "a file that vanishes before it is read is skipped and reported; leave the option out.",
	"mode":                               "weir always reads permissively: values that do not parse go to the rescued-data column (rescuedDataColumn).",
	"badrecordspath":                     "Values that do not parse go to the rescued-data column (rescuedDataColumn).",
	"columnnameofcorruptrecord":          "Values that do not parse go to the rescued-data column (rescuedDataColumn).",
	"inferschema":                        "Use inferColumnTypes.",
	"mergeschema":                        "weir merges the schemas of the sampled files always; leave the option out.",
	"multiline":                          "weir reads JSON lines (one object a line) and one-line CSV records.",
	"encoding":                           "weir reads files as UTF-8.",
	"charset":                            "weir reads files as UTF-8.",
	"linesep":                            "weir splits lines at \\n (and \\r\\n).",
	"dateformat":                         "Read the column as text and convert it with to_date.",
	"timestampformat":                    "Read the column as text and convert it with to_timestamp.",
	"timezone":                           "Read the column as text and convert it with to_timestamp.",
	"locale":                             "weir parses numbers and dates in the C locale.",
	"comment":                            "Filter comment lines out after reading them as text.",
	"skiprows":                           "Filter the rows out after reading them.",
	"emptyvalue":                         "Use nullValue.",
	"nanvalue":                           "Read the column as text and convert it.",
	"positiveinf":                        "Read the column as text and convert it.",
	"negativeinf":                        "Read the column as text and convert it.",
	"ignoreleadingwhitespace":            "Read the column as text and trim it.",
	"ignoretrailingwhitespace":           "Read the column as text and trim it.",
	"enforceschema":                      "weir matches CSV columns by the header's names when header is true; leave the option out.",
	"maxcolumns":                         "leave the option out.",
	"maxcharspercolumn":                  "leave the option out.",
	"unescapedquotehandling":             "leave the option out.",
	"chartoescapequoteescaping":          "Use escape.",
	"prefersdecimal":                     "Use schemaHints to give a column a decimal type.",
	"primitivesasstring":                 "Use inferColumnTypes => false.",
	"preferdate":                         "Use schemaHints to give a column the date type.",
	"dropfieldifallnull":                 "leave the option out.",
	"allowcomments":                      "weir reads strict JSON.",
	"allowsinglequotes":                  "weir reads strict JSON.",
	"allowunquotedfieldnames":            "weir reads strict JSON.",
	"allownumericleadingzeros":           "weir reads strict JSON.",
	"allowbackslashescapinganycharacter": "weir reads strict JSON.",
	"allownonnumericnumbers":             "weir reads strict JSON.",
	"allowunquotedcontrolchars":          "weir reads strict JSON.",
	"singlevariantcolumn":                "Read the file as text and cast each line to jsonb.",
	"readercasesensitive":                "leave the option out.",
	"parsercasesensitive":                "leave the option out.",
	"datetimerebasemode":                 "leave the option out.",
	"int96rebasemode":                    "leave the option out.",
	"wholetext":                          "weir's text format reads one row per line.",
	"rowtag":                             "weir does not read XML.",
	"schemaevolutionmode.addnewcolumnswithtypewidening": "Use addNewColumns.",
}

// Formats weir reads, and Databricks' formats it does not.
var (
	knownFormats       = []string{"json", "csv", "parquet", "text"}
	unsupportedFormats = map[string]bool{"avro": true, "orc": true, "xml": true, "binaryfile": true, "file": true, "delta": true}
)

// Defaults of the options not given (Databricks' defaults for
// read_files, as api.go's Options documents them).
const (
	defaultRescuedColumn      = "_rescued_data"
	defaultMaxFilesPerTrigger = 1000
)

// ParseOptions checks read_files' / CREATE SOURCE's options (Databricks'
// names, case-insensitive; cloudFiles.-prefixed spellings too): 22023
// for an unknown or ill-typed one, 0A000 naming a Databricks option weir
// does not have, with what to use instead. path and format are required.
// path is checked only for what weir cannot read at all (a cloud URL, a
// Unity Catalog volume); resolving it under --files-root is the engine's.
func ParseOptions(settings []connector.Setting) (Options, error) {
	canon := make([]connector.Setting, 0, len(settings))
	seen := map[string]bool{}
	for _, st := range settings {
		lower := strings.ToLower(strings.TrimSpace(st.Name))
		bare := strings.TrimPrefix(lower, "cloudfiles.")
		if hint, ok := unsupportedOptions[bare]; ok {
			return Options{}, sqlerr.New(sqlerr.FeatureNotSupported, "the files source does not support option \"%s\"", st.Name).WithHint(hint)
		}
		name, ok := optionNames[bare]
		if !ok {
			return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized option \"%s\" for the files source", st.Name).WithHint(optionList())
		}
		if seen[name] {
			return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "option \"%s\" given more than once", name)
		}
		seen[name] = true
		canon = append(canon, connector.Setting{Name: name, Value: st.Value})
	}
	p, err := optionSpec.Parse(canon)
	if err != nil {
		return Options{}, err
	}
	o := Options{
		InferColumnTypes:   true,
		RescuedColumn:      defaultRescuedColumn,
		Delimiter:          ',',
		Quote:              '"',
		Escape:             '"',
		Recursive:          true,
		MaxFilesPerTrigger: defaultMaxFilesPerTrigger,
	}
	if c := p.String("connector"); p.Has("connector") && !strings.EqualFold(c, "files") {
		return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"connector\": \"%s\"", c).WithHint("The files source is connector 'files'.")
	}
	if o.Path, err = checkPath(p.String("path"), p.Has("path")); err != nil {
		return Options{}, err
	}
	if o.Format, err = checkFormat(p.String("format"), p.Has("format")); err != nil {
		return Options{}, err
	}
	o.Schema = p.String("schema")
	o.SchemaHints = p.String("schemaHints")
	if p.Has("inferColumnTypes") {
		o.InferColumnTypes = p.Bool("inferColumnTypes")
	}
	// Databricks: addNewColumns when the schema is inferred, none when
	// the user gave it.
	o.EvolutionMode = EvolveAddNewColumns
	if o.Schema != "" {
		o.EvolutionMode = EvolveNone
	}
	if p.Has("schemaEvolutionMode") {
		if o.EvolutionMode, err = checkEvolution(p.String("schemaEvolutionMode")); err != nil {
			return Options{}, err
		}
	}
	if p.Has("rescuedDataColumn") {
		o.RescuedColumn = strings.TrimSpace(p.String("rescuedDataColumn"))
	} else if p.Has("schemaEvolutionMode") && o.EvolutionMode == EvolveNone {
		// Databricks' none: new columns are ignored, and data is not
		// rescued unless rescuedDataColumn is set.
		o.RescuedColumn = ""
	}
	o.Header = p.Bool("header")
	for _, c := range []struct {
		name string
		dst  *byte
	}{{"delimiter", &o.Delimiter}, {"quote", &o.Quote}, {"escape", &o.Escape}} {
		if !p.Has(c.name) {
			continue
		}
		b, err := oneByte(c.name, p.String(c.name))
		if err != nil {
			return Options{}, err
		}
		*c.dst = b
	}
	if o.Delimiter == 0 {
		return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"delimiter\": \"\"").WithHint("Use one character, such as ',' or '\\t'.")
	}
	o.NullValue = p.String("nullValue")
	if o.PathGlobFilter = p.String("pathGlobFilter"); o.PathGlobFilter != "" {
		if err := checkGlob(o.PathGlobFilter); err != nil {
			return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"pathGlobFilter\": \"%s\"", o.PathGlobFilter).WithHint(err.Error())
		}
	}
	if p.Has("recursiveFileLookup") {
		o.Recursive = p.Bool("recursiveFileLookup")
	}
	if p.Has("modifiedAfter") {
		if o.ModifiedAfter, err = parseInstant("modifiedAfter", p.String("modifiedAfter")); err != nil {
			return Options{}, err
		}
	}
	if p.Has("modifiedBefore") {
		if o.ModifiedBefore, err = parseInstant("modifiedBefore", p.String("modifiedBefore")); err != nil {
			return Options{}, err
		}
	}
	if p.Has("maxFilesPerTrigger") {
		n := p.Int("maxFilesPerTrigger")
		if n <= 0 || n > 1<<31-1 {
			return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"maxFilesPerTrigger\": %d", n).WithHint("Use a positive number of files.")
		}
		o.MaxFilesPerTrigger = int(n)
	}
	if p.Has("maxBytesPerTrigger") {
		n, ok := ParseByteSize(p.String("maxBytesPerTrigger"))
		if !ok || n <= 0 {
			return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"maxBytesPerTrigger\": \"%s\"", p.String("maxBytesPerTrigger")).WithHint("Use a positive size, such as '512m' or '10g'.")
		}
		o.MaxBytesPerTrigger = n
	}
	if p.Has("includeExistingFiles") && !p.Bool("includeExistingFiles") {
		return Options{}, sqlerr.New(sqlerr.FeatureNotSupported, "the files source does not support includeExistingFiles => false").WithHint("Use modifiedAfter to leave the files already there out.")
	}
	o.IgnoreCorruptFiles = p.Bool("ignoreCorruptFiles")
	return o, nil
}

func optionList() string {
	names := make([]string, 0, len(optionSpec.Options))
	for _, o := range optionSpec.Options {
		names = append(names, o.Name)
	}
	return "Options: " + strings.Join(names, ", ") + " (also with the cloudFiles. prefix; sep for delimiter, fileNamePattern for pathGlobFilter)."
}

// checkPath refuses what weir cannot read whatever the files roots: cloud
// storage and Unity Catalog volumes.
func checkPath(p string, given bool) (string, error) {
	if !given || strings.TrimSpace(p) == "" {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "the files source needs a path").WithHint("Give the folder, file or glob to read: path => 'landing/events'.")
	}
	lower := strings.ToLower(p)
	for _, scheme := range []string{"s3://", "s3a://", "s3n://", "abfss://", "abfs://", "wasbs://", "wasb://", "gs://", "dbfs:", "adl://", "hdfs://", "http://", "https://", "file:"} {
		if strings.HasPrefix(lower, scheme) {
			return "", sqlerr.New(sqlerr.FeatureNotSupported, "weir cannot read \"%s\": it reads local folders, not cloud storage", p).WithHint("Give a folder under the server's --files-root (a relative path is resolved against it).")
		}
	}
	if strings.HasPrefix(p, "/Volumes/") {
		// A Unity Catalog volume; a real local folder of that name (macOS
		// mounts) is read as such.
		if _, err := os.Stat(p); err != nil {
			return "", sqlerr.New(sqlerr.FeatureNotSupported, "weir cannot read the Unity Catalog volume \"%s\": it reads local folders", p).WithHint("Give a folder under the server's --files-root (a relative path is resolved against it).")
		}
	}
	return p, nil
}

func checkFormat(f string, given bool) (string, error) {
	if !given || strings.TrimSpace(f) == "" {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "the files source needs a format").WithHint("Use format => 'json' (JSON lines), 'csv', 'parquet' or 'text'.")
	}
	lower := strings.ToLower(strings.TrimSpace(f))
	for _, k := range knownFormats {
		if lower == k {
			return k, nil
		}
	}
	if unsupportedFormats[lower] {
		return "", sqlerr.New(sqlerr.FeatureNotSupported, "the files source does not read format \"%s\"", f).WithHint("Use 'json' (JSON lines), 'csv', 'parquet' or 'text'.")
	}
	return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"format\": \"%s\"", f).WithHint("Use 'json' (JSON lines), 'csv', 'parquet' or 'text'.")
}

func checkEvolution(m string) (string, error) {
	for _, k := range []string{EvolveAddNewColumns, EvolveRescue, EvolveFailOnNewColumns, EvolveNone} {
		if strings.EqualFold(strings.TrimSpace(m), k) {
			return k, nil
		}
	}
	if strings.EqualFold(strings.TrimSpace(m), "addNewColumnsWithTypeWidening") {
		return "", sqlerr.New(sqlerr.FeatureNotSupported, "schemaEvolutionMode \"%s\" is not supported", m).WithHint("Use addNewColumns.")
	}
	return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"schemaEvolutionMode\": \"%s\"", m).WithHint("Use addNewColumns, rescue, failOnNewColumns or none.")
}

// oneByte reads a one-character CSV option: one ASCII character, or an
// escape (\t, \n, \\, \0); "" turns quoting or escaping off (0).
func oneByte(name, v string) (byte, error) {
	switch v {
	case "":
		return 0, nil
	case `\t`:
		return '\t', nil
	case `\n`:
		return '\n', nil
	case `\\`:
		return '\\', nil
	case `\0`, `\u0000`:
		return 0, nil
	}
	if len(v) == 1 && v[0] < 0x80 {
		return v[0], nil
	}
	return 0, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"%s\": \"%s\"", name, v).WithHint("Use one ASCII character, such as ',' or '\\t'.")
}

// parseInstant reads modifiedAfter / modifiedBefore: a timestamp as
// PostgreSQL reads timestamptz ('2024-06-01T13:00:00', with or without a
// zone; none means UTC, as Databricks' default session time zone).
func parseInstant(name, v string) (time.Time, error) {
	us, err := types.ParseTimestampTZ(strings.TrimSpace(v), time.UTC)
	if err != nil {
		return time.Time{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"%s\": \"%s\"", name, v).WithHint("Use a timestamp, such as '2024-06-01T13:00:00'.")
	}
	return time.UnixMicro(us).UTC(), nil
}

// ParseByteSize reads a size as Spark's byte strings do: a number with an
// optional unit b, k, m, g, t, p (or kb, mb, ..., KiB-based: 1k = 1024).
func ParseByteSize(v string) (int64, bool) {
	s := strings.ToLower(strings.TrimSpace(v))
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	unit := strings.TrimSpace(s[i:])
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "ib"), "b")
	shift := map[string]uint{"": 0, "k": 10, "m": 20, "g": 30, "t": 40, "p": 50}
	sh, ok := shift[unit]
	if !ok {
		return 0, false
	}
	if n > (1<<62)>>sh {
		return 0, false
	}
	return n << sh, true
}
