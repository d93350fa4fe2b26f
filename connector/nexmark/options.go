package nexmark

import (
	"strconv"
	"strings"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// DefaultBatchEvents is a source batch's rows when batch_size is not given.
const DefaultBatchEvents = 8192

// MaxEventsPerSecond bounds events_per_second: one event a nanosecond
// (RisingWave's smallest nexmark.min.event.gap.in.ns), which keeps a
// paced source's arithmetic within int64 for centuries.
const MaxEventsPerSecond = 1_000_000_000

// Spec is the options of the nexmark connector and of the nexmark() table
// function (whose first argument is the table).
var Spec = connector.OptionSpec{Options: []connector.Option{
	{Name: "connector", Kind: connector.StringOption},
	{Name: "table", Kind: connector.StringOption},
	{Name: "events_per_second", Kind: connector.IntOption, Hint: "Use a positive integer: the events per second of event time."},
	{Name: "max_events", Kind: connector.IntOption, Hint: "Use a non-negative integer: the events of all three tables (0 is unbounded)."},
	{Name: "seed", Kind: connector.IntOption},
	{Name: "batch_size", Kind: connector.IntOption, Hint: "Use a positive integer: the rows of one batch."},
	{Name: "disorder", Kind: connector.DurationOption},
	{Name: "late_fraction", Kind: connector.StringOption, Hint: "Use a fraction between 0 and 1."},
	{Name: "late_by", Kind: connector.DurationOption},
	{Name: "paced", Kind: connector.BoolOption},
}}

// Options are a nexmark source's parsed options.
type Options struct {
	Table  Table
	Config Config
	// BatchRows is the rows of one batch (one offset).
	BatchRows int
	// Paced makes rows readable at EventsPerSecond of wall-clock time
	// since the source opened (always so when MaxEvents is 0).
	Paced bool
}

// ParseOptions checks a statement's options (22023 for an unknown,
// ill-typed or out-of-range one, naming it). table is required.
func ParseOptions(settings []connector.Setting) (Options, error) {
	o, err := Spec.Parse(settings)
	if err != nil {
		return Options{}, err
	}
	bad := func(name, v, hint string) error {
		return sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"%s\": \"%s\"", name, v).WithHint(hint)
	}
	if c := o.String("connector"); o.Has("connector") && c != "nexmark" {
		return Options{}, bad("connector", c, "This is the nexmark connector.")
	}
	out := Options{Config: DefaultConfig(), BatchRows: DefaultBatchEvents, Paced: o.Bool("paced")}
	name := strings.ToLower(o.String("table"))
	if !o.Has("table") {
		return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "option \"table\" is required").WithHint("Use person, auction or bid.")
	}
	t, ok := TableByName(name)
	if !ok {
		return Options{}, bad("table", o.String("table"), "Use person, auction or bid.")
	}
	out.Table = t
	if o.Has("events_per_second") {
		if v := o.Int("events_per_second"); v <= 0 || v > MaxEventsPerSecond {
			return Options{}, bad("events_per_second", strconv.FormatInt(v, 10), "Use a positive integer up to 1000000000: the events per second of event time.")
		} else {
			out.Config.EventsPerSecond = v
		}
	}
	if o.Has("max_events") {
		if v := o.Int("max_events"); v < 0 {
			return Options{}, bad("max_events", strconv.FormatInt(v, 10), "Use a non-negative integer: the events of all three tables (0 is unbounded).")
		} else {
			out.Config.MaxEvents = v
		}
	}
	if o.Has("seed") {
		out.Config.Seed = o.Int("seed")
	}
	if o.Has("batch_size") {
		v := o.Int("batch_size")
		if v <= 0 || v > 1<<20 {
			return Options{}, bad("batch_size", strconv.FormatInt(v, 10), "Use a positive integer up to 1048576: the rows of one batch.")
		}
		out.BatchRows = int(v)
	}
	out.Config.Disorder = o.Duration("disorder")
	if o.Has("late_by") {
		out.Config.LateBy = o.Duration("late_by")
	}
	if o.Has("late_fraction") {
		s := o.String("late_fraction")
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return Options{}, bad("late_fraction", s, "Use a fraction between 0 and 1.")
		}
		out.Config.LateFraction = f
	}
	return out, nil
}
