package types

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
)

// Struct (record) types.
//
// A struct type is PostgreSQL's anonymous record (OID 2249) with a type
// modifier that names a registered shape, as PostgreSQL's own "blessed"
// record types do: T{OidRecord, n} with n >= 0 is the n-th shape ever
// registered in this process, T{OidRecord, -1} is the bare pseudo-type. The
// shape keeps T a small comparable value (every package compares and maps
// types by ==) while the field list lives here, once. Shapes are interned:
// equal field lists give the same T. The number is a process-local handle,
// never written down as such: T's JSON form carries the field list and
// registers the shape again when read back.
//
// Values are carried as an Arrow struct column whose children are the
// fields' own representations. To clients a struct is record: format_type
// says "record", the wire sends OID 2249 with typmod -1, text is
// record_out's and binary record_send's.

// StructField is one field of a struct type.
type StructField struct {
	Name string
	Type T
}

type structShape struct {
	fields []StructField
	arrow  *arrow.StructType
}

// structShapes is the registry: readers load the slice without a lock
// (T.Arrow is called for every builder); registration copies it.
var (
	structShapes   atomic.Pointer[[]*structShape]
	structRegister sync.Mutex
	structByKey    = map[string]int32{}
)

// StructOf returns the struct type with these fields, registering its shape
// the first time.
func StructOf(fields []StructField) T {
	key := structKey(fields)
	structRegister.Lock()
	defer structRegister.Unlock()
	if id, ok := structByKey[key]; ok {
		return T{OidRecord, id}
	}
	var cur []*structShape
	if p := structShapes.Load(); p != nil {
		cur = *p
	}
	af := make([]arrow.Field, len(fields))
	fs := make([]StructField, len(fields))
	for i, f := range fields {
		fs[i] = f
		af[i] = arrow.Field{Name: f.Name, Type: f.Type.Arrow(), Nullable: true}
	}
	next := make([]*structShape, len(cur), len(cur)+1)
	copy(next, cur)
	next = append(next, &structShape{fields: fs, arrow: arrow.StructOf(af...)})
	id := int32(len(cur))
	structShapes.Store(&next)
	structByKey[key] = id
	return T{OidRecord, id}
}

func structKey(fields []StructField) string {
	var b strings.Builder
	for _, f := range fields {
		b.WriteString(f.Name)
		b.WriteByte(0)
		b.WriteString(f.Type.key())
		b.WriteByte(1)
	}
	return b.String()
}

// key identifies a type exactly, struct fields included.
func (t T) key() string {
	if t.IsStruct() {
		return "{" + structKey(t.Fields()) + "}"
	}
	b := make([]byte, 0, 16)
	b = appendInt(b, int64(t.OID))
	b = append(b, ':')
	b = appendInt(b, int64(t.Typmod))
	return string(b)
}

func shapeOf(t T) *structShape {
	if t.OID != OidRecord || t.Typmod < 0 {
		return nil
	}
	p := structShapes.Load()
	if p == nil || int(t.Typmod) >= len(*p) {
		return nil
	}
	return (*p)[t.Typmod]
}

// IsStruct reports whether t is a struct type with known fields (not the
// bare record pseudo-type).
func (t T) IsStruct() bool { return shapeOf(t) != nil }

// Fields lists a struct type's fields (nil for other types). The slice is
// shared: callers must not modify it.
func (t T) Fields() []StructField {
	if s := shapeOf(t); s != nil {
		return s.fields
	}
	return nil
}

// FieldIndex finds a field by name: the exact spelling first, then ignoring
// case (Spark's field names are case-insensitive; PostgreSQL folds unquoted
// names to lower case). -1 when there is none.
func (t T) FieldIndex(name string) int {
	fs := t.Fields()
	for i, f := range fs {
		if f.Name == name {
			return i
		}
	}
	for i, f := range fs {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// PGTypmod is the type modifier PostgreSQL would show for t: a struct's
// registry number means nothing to a client, record has none.
func (t T) PGTypmod() int32 {
	if t.OID == OidRecord {
		return -1
	}
	return t.Typmod
}

// jsonT is T's stored form; Struct is set for struct types.
type jsonT struct {
	OID    uint32
	Typmod int32
	Struct []jsonField `json:",omitempty"`
}

type jsonField struct {
	Name string
	Type T
}

// MarshalJSON writes {OID, Typmod} as the default encoding did, plus the
// field list of a struct type, so that a catalog written before struct
// types existed reads the same and a struct column survives a restart.
func (t T) MarshalJSON() ([]byte, error) {
	j := jsonT{OID: t.OID, Typmod: t.Typmod}
	if fs := t.Fields(); t.IsStruct() {
		j.Typmod = -1
		j.Struct = make([]jsonField, len(fs))
		for i, f := range fs {
			j.Struct[i] = jsonField(f)
		}
		if j.Struct == nil {
			j.Struct = []jsonField{}
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads MarshalJSON's form, registering a struct's shape.
func (t *T) UnmarshalJSON(b []byte) error {
	var j jsonT
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Struct != nil && j.OID == OidRecord {
		fs := make([]StructField, len(j.Struct))
		for i, f := range j.Struct {
			fs[i] = StructField(f)
		}
		*t = StructOf(fs)
		return nil
	}
	*t = T{j.OID, j.Typmod}
	return nil
}

// structArrow is the Arrow type of a struct type.
func structArrow(t T) (arrow.DataType, bool) {
	if s := shapeOf(t); s != nil {
		return s.arrow, true
	}
	return nil, false
}
