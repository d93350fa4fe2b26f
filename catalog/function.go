package catalog

import (
	"encoding/binary"
	"sort"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// Function is a user-defined scalar SQL function (CREATE FUNCTION …
// LANGUAGE sql): its body is one expression over its parameters, inlined
// into every query that calls it, as PostgreSQL inlines simple SQL
// functions. Stored under c/func/<oid>; OIDs come from the counter
// relations draw theirs from.
type Function struct {
	OID    uint32
	Schema string
	Name   string
	Owner  uint32
	Args   []FunctionArg
	Ret    types.T
	// Body is the expression the function returns, as SQL text over the
	// parameters' names ($n for unnamed ones); the planner inlines it.
	Body string
	// Src is pg_proc.prosrc: the $$ … $$ text of the AS form; "" for the
	// SQL-standard RETURN form (PostgreSQL keeps that in prosqlbody).
	Src string
	// Volatility is pg_proc.provolatile: 'i', 's' or 'v'.
	Volatility byte
	Created    time.Time
}

// FunctionArg is one parameter; Name is "" when it has none.
type FunctionArg struct {
	Name string
	Type types.T
}

// ArgTypes are the function's parameter types in order.
func (f *Function) ArgTypes() []types.T {
	out := make([]types.T, len(f.Args))
	for i, a := range f.Args {
		out[i] = a.Type
	}
	return out
}

const prefixFunc = state.PrefixCatalog + "func/"

// SQLSTATEs of function definitions sqlerr does not name.
const (
	codeDuplicateFunction         = "42723"
	codeInvalidFunctionDefinition = "42P13"
)

func funcKey(oid uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte(prefixFunc), oid)
}

func (c *Catalog) loadFunctions(tx *state.Txn) error {
	return tx.IteratePrefix([]byte(prefixFunc), func(_, v []byte) error {
		var f Function
		if err := unmarshal(v, &f); err != nil {
			return err
		}
		if c.funcs == nil {
			c.funcs = map[uint32]*Function{}
		}
		c.funcs[f.OID] = &f
		return nil
	})
}

// sameSignature reports whether a and b take the same argument types
// (PostgreSQL's identity of a function: name and input types).
func sameSignature(a, b []types.T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].OID != b[i].OID {
			return false
		}
	}
	return true
}

// CreateFunction stores f (OID, Created filled in). With orReplace a
// function of the same name and argument types is replaced, keeping its
// OID and owner; its return type must not change (42P13, as PostgreSQL).
func (c *Catalog) CreateFunction(f *Function, orReplace bool) (*Function, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.schemas[f.Schema]; !ok {
		return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", f.Schema)
	}
	nf := *f
	nf.Created = time.Now().UTC()
	for _, old := range c.funcs {
		if old.Schema != f.Schema || old.Name != f.Name || !sameSignature(old.ArgTypes(), f.ArgTypes()) {
			continue
		}
		if !orReplace {
			return nil, sqlerr.New(codeDuplicateFunction, "function \"%s\" already exists with same argument types", f.Name)
		}
		if old.Ret.OID != f.Ret.OID {
			return nil, sqlerr.New(codeInvalidFunctionDefinition, "cannot change return type of existing function").
				WithHint("Use DROP FUNCTION " + f.Name + " first.")
		}
		nf.OID, nf.Owner, nf.Created = old.OID, old.Owner, old.Created
	}
	if nf.OID == 0 {
		oid, err := c.st.NextID(oidCounter)
		if err != nil {
			return nil, err
		}
		nf.OID = uint32(oid)
	}
	if nf.Owner == 0 {
		nf.Owner = BootstrapRoleOID
	}
	err := c.commit(func(tx *state.Txn) error { return putJSON(tx, funcKey(nf.OID), &nf) },
		func() {
			if c.funcs == nil {
				c.funcs = map[uint32]*Function{}
			}
			c.funcs[nf.OID] = &nf
		})
	if err != nil {
		return nil, err
	}
	return &nf, nil
}

// DropFunction removes function oid.
func (c *Catalog) DropFunction(oid uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.funcs[oid]; !ok {
		return sqlerr.New(sqlerr.UndefinedFunction, "function with OID %d does not exist", oid)
	}
	return c.commit(func(tx *state.Txn) error { return tx.Delete(funcKey(oid)) },
		func() { delete(c.funcs, oid) })
}

// FunctionsNamed returns the functions called name in schema ("" for any
// schema), ordered by OID.
func (c *Catalog) FunctionsNamed(schema, name string) []*Function {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Function
	for _, f := range c.funcs {
		if f.Name == name && (schema == "" || f.Schema == schema) {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// Functions returns every user function ordered by OID.
func (c *Catalog) Functions() []*Function {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Function, 0, len(c.funcs))
	for _, f := range c.funcs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// FunctionByOID returns function oid.
func (c *Catalog) FunctionByOID(oid uint32) (*Function, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	f, ok := c.funcs[oid]
	return f, ok
}
