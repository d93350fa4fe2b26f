package connector

import (
	"strings"
	"testing"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

var testSpec = OptionSpec{Options: []Option{
	{Name: "path", Kind: StringOption},
	{Name: "header", Kind: BoolOption},
	{Name: "batch_rows", Kind: IntOption, Hint: "A number of rows."},
	{Name: "poll", Kind: DurationOption},
}}

func TestOptionsParse(t *testing.T) {
	o, err := testSpec.Parse([]Setting{{"path", "/x"}, {"header", "on"}, {"batch_rows", " 512"}, {"poll", "1 minute"}})
	if err != nil {
		t.Fatal(err)
	}
	if o.String("path") != "/x" || !o.Bool("header") || o.Int("batch_rows") != 512 || o.Duration("poll") != time.Minute {
		t.Errorf("parsed %+v", o.set)
	}
	if o.Has("missing") || o.String("missing") != "" || o.Int("missing") != 0 {
		t.Errorf("an option not given reads as its zero value")
	}
	o, err = testSpec.ParseMap(map[string]string{"header": "false", "poll": ""})
	if err != nil || o.Bool("header") || !o.Has("poll") || o.Duration("poll") != 0 {
		t.Errorf("ParseMap: %+v, %v", o.set, err)
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		in        []Setting
		msg, hint string
	}{
		{[]Setting{{"paht", "/x"}}, `unrecognized option "paht"`, "Options: path, header, batch_rows, poll."},
		{[]Setting{{"header", "maybe"}}, `invalid value for option "header": "maybe"`, "Use true or false."},
		{[]Setting{{"batch_rows", "1e3"}}, `invalid value for option "batch_rows": "1e3"`, "A number of rows."},
		{[]Setting{{"poll", "1 month"}}, `invalid value for option "poll": "1 month"`, "Use an interval in days or less, such as '24 hours'."},
		// The first bad setting is the error.
		{[]Setting{{"header", "x"}, {"nope", "1"}}, `invalid value for option "header"`, ""},
	} {
		_, err := testSpec.Parse(tc.in)
		e := sqlerr.From(err)
		if err == nil || e.Code != sqlerr.InvalidParameterValue || !strings.HasPrefix(e.Message, tc.msg) || (tc.hint != "" && e.Hint != tc.hint) {
			t.Errorf("%v: %v (hint %q), want 22023 %q (%q)", tc.in, err, e.Hint, tc.msg, tc.hint)
		}
	}
	custom := OptionSpec{Unknown: "unrecognized parameter \"%s\"", UnknownHint: "None."}
	if _, err := custom.Parse([]Setting{{"a", "b"}}); sqlerr.From(err).Message != `unrecognized parameter "a"` || sqlerr.From(err).Hint != "None." {
		t.Errorf("custom unknown message: %v", err)
	}
}
