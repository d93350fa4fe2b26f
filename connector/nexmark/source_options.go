package nexmark

import (
	"strconv"
	"strings"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// A source's options (CREATE SOURCE ... WITH (connector = 'nexmark', ...))
// are the nexmark() table function's (Spec) plus RisingWave's dotted
// spellings of the same ideas, and paced defaults to true: a source
// offers events at events_per_second of wall-clock time from its start,
// as a real feed would; paced = false offers them all at once. A paced
// source's batch_size defaults to a tenth of a second of its rows.

// dottedNames maps RisingWave's nexmark options onto weir's.
// nexmark.min.event.gap.in.ns is the gap between events' times, so it
// sets events_per_second (10^9 / gap); nexmark.split.num is accepted and
// has no effect on the rows (weir reads one split).
var dottedNames = map[string]string{
	"nexmark.table.type":          "table",
	"nexmark.event.num":           "max_events",
	"nexmark.max.chunk.size":      "batch_size",
	"nexmark.min.event.gap.in.ns": "events_per_second",
	"nexmark.use.real.time":       "paced",
	"nexmark.split.num":           "",
	"nexmark.seed":                "seed",
}

// SourceOptionNames lists the options CREATE SOURCE takes for the
// nexmark connector, for hints.
func SourceOptionNames() string {
	names := make([]string, 0, len(Spec.Options)+len(dottedNames))
	for _, o := range Spec.Options {
		names = append(names, o.Name)
	}
	for _, n := range []string{"nexmark.table.type", "nexmark.event.num", "nexmark.max.chunk.size", "nexmark.min.event.gap.in.ns",
		"nexmark.use.real.time", "nexmark.split.num", "nexmark.seed"} {
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// ParseSourceOptions checks CREATE SOURCE's options (22023 naming the
// option for a bad value; an unknown one is 22023 with the list of those
// taken). The settings may use RisingWave's dotted names; giving one idea
// under two names is an error.
func ParseSourceOptions(settings []connector.Setting) (Options, error) {
	bad := func(name, v, hint string) error {
		return sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"%s\": \"%s\"", name, v).WithHint(hint)
	}
	out := make([]connector.Setting, 0, len(settings)+1)
	given := map[string]string{} // weir name -> the name it was given as
	pacedGiven := false
	for _, st := range settings {
		name, value := strings.ToLower(st.Name), st.Value
		if canon, ok := dottedNames[name]; ok {
			switch name {
			case "nexmark.split.num":
				if n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); err != nil || n <= 0 {
					return Options{}, bad(name, value, "Use a positive integer (weir reads one split; the rows are the same).")
				}
				continue
			case "nexmark.min.event.gap.in.ns":
				gap, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
				if err != nil || gap <= 0 || gap > 1_000_000_000 {
					return Options{}, bad(name, value, "Use a positive integer of nanoseconds, at most 1000000000 (one event per second).")
				}
				value = strconv.FormatInt(1_000_000_000/gap, 10)
			case "nexmark.table.type":
				value = strings.ToLower(strings.TrimSpace(value))
			}
			name = canon
		} else if !specHas(name) {
			return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized option \"%s\" for a nexmark source", st.Name).
				WithHint("Options: " + SourceOptionNames() + ".")
		}
		if first, dup := given[name]; dup {
			return Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "option \"%s\" given twice (as \"%s\" too)", st.Name, first).
				WithHint("Give each option once.")
		}
		given[name] = st.Name
		if name == "paced" {
			pacedGiven = true
		}
		out = append(out, connector.Setting{Name: name, Value: value})
	}
	if !pacedGiven {
		out = append(out, connector.Setting{Name: "paced", Value: "true"})
	}
	o, err := ParseOptions(out)
	if err == nil && o.Paced && given["batch_size"] == "" {
		// A paced feed offers whole batches only: by default a batch is
		// a tenth of a second of the table's rows, so that a slow feed
		// still moves every tenth of a second (at most the default size).
		perSecond := RowsIn(o.Table, o.Config.EventsPerSecond)
		o.BatchRows = int(max(1, min(DefaultBatchEvents, perSecond/10)))
	}
	if err != nil {
		// Name the option as the statement spelled it.
		if e, ok := err.(*sqlerr.Error); ok {
			for canon, as := range given {
				if as != canon && strings.Contains(e.Message, `"`+canon+`"`) {
					cp := *e
					cp.Message = strings.Replace(e.Message, `"`+canon+`"`, `"`+as+`"`, 1)
					return Options{}, &cp
				}
			}
		}
		return Options{}, err
	}
	return o, nil
}

func specHas(name string) bool {
	for _, o := range Spec.Options {
		if o.Name == name {
			return true
		}
	}
	return false
}
