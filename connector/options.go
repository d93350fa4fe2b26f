package connector

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Typed options. A connector declares the WITH (...) options it takes as
// an OptionSpec; Parse checks a statement's options against it and gives
// typed values, so that every source and sink reports an unknown or
// ill-typed option the same way: SQLSTATE 22023 (invalid_parameter_value),
// with a hint saying what is accepted.

// OptionKind is the type of an option's value.
type OptionKind int

const (
	StringOption   OptionKind = iota
	BoolOption                // true/false, on/off, yes/no, t/f, y/n, 1/0
	IntOption                 // a decimal integer
	DurationOption            // an interval of days or less ('24 hours'); '' is 0
)

// Option is one option a connector takes.
type Option struct {
	Name string
	Kind OptionKind
	// Hint is the hint of the error for an ill-typed value (a default is
	// given by its kind when empty).
	Hint string
}

// OptionSpec is the options a connector takes.
type OptionSpec struct {
	Options []Option
	// Unknown is the message of the error for an option not in Options, a
	// format with the option's name (default: `unrecognized option "%s"`);
	// UnknownHint its hint (default: the list of the options).
	Unknown     string
	UnknownHint string
}

// Setting is one option as a statement gives it.
type Setting struct{ Name, Value string }

// Options are parsed option values, by name.
type Options struct {
	set map[string]any
}

// Has reports whether the option was given.
func (o Options) Has(name string) bool { _, ok := o.set[name]; return ok }

// String is a string option's value ("" when not given).
func (o Options) String(name string) string { v, _ := o.set[name].(string); return v }

// Bool is a boolean option's value (false when not given).
func (o Options) Bool(name string) bool { v, _ := o.set[name].(bool); return v }

// Int is an integer option's value (0 when not given).
func (o Options) Int(name string) int64 { v, _ := o.set[name].(int64); return v }

// Duration is a duration option's value (0 when not given).
func (o Options) Duration(name string) time.Duration { v, _ := o.set[name].(time.Duration); return v }

// Parse checks settings against the spec, in order: the first unknown or
// ill-typed one is the error.
func (s OptionSpec) Parse(settings []Setting) (Options, error) {
	out := Options{set: make(map[string]any, len(settings))}
	for _, st := range settings {
		opt, ok := s.lookup(st.Name)
		if !ok {
			return Options{}, s.unknown(st.Name)
		}
		v, err := parseValue(opt, st.Value)
		if err != nil {
			return Options{}, err
		}
		out.set[opt.Name] = v
	}
	return out, nil
}

// ParseMap is Parse of options kept as a map (a catalog object's), in
// the order of their names.
func (s OptionSpec) ParseMap(m map[string]string) (Options, error) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	settings := make([]Setting, len(names))
	for i, k := range names {
		settings[i] = Setting{k, m[k]}
	}
	return s.Parse(settings)
}

func (s OptionSpec) lookup(name string) (Option, bool) {
	for _, o := range s.Options {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

func (s OptionSpec) unknown(name string) error {
	msg := s.Unknown
	if msg == "" {
		msg = "unrecognized option \"%s\""
	}
	hint := s.UnknownHint
	if hint == "" {
		names := make([]string, len(s.Options))
		for i, o := range s.Options {
			names[i] = o.Name
		}
		hint = "Options: " + strings.Join(names, ", ") + "."
	}
	return sqlerr.New(sqlerr.InvalidParameterValue, msg, name).WithHint(hint)
}

func parseValue(o Option, v string) (any, error) {
	bad := func(hint string) error {
		if o.Hint != "" {
			hint = o.Hint
		}
		return sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"%s\": \"%s\"", o.Name, v).WithHint(hint)
	}
	switch o.Kind {
	case BoolOption:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "on", "yes", "1", "t", "y":
			return true, nil
		case "false", "off", "no", "0", "f", "n":
			return false, nil
		}
		return nil, bad("Use true or false.")
	case IntOption:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, bad("Use an integer.")
		}
		return n, nil
	case DurationOption:
		if strings.TrimSpace(v) == "" {
			return time.Duration(0), nil
		}
		iv, err := types.ParseInterval(v)
		if err != nil || iv.Months != 0 || iv.Days < 0 || iv.Nanoseconds < 0 {
			return nil, bad("Use an interval in days or less, such as '24 hours'.")
		}
		return time.Duration(int64(iv.Days)*types.MicrosPerDay+iv.Nanoseconds/1000) * time.Microsecond, nil
	case StringOption:
		return v, nil
	}
	return nil, sqlerr.New(sqlerr.InternalError, "option %s of unknown kind %d", o.Name, o.Kind)
}
