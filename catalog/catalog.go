package catalog

import (
	"encoding/binary"
	"encoding/json"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Keys under state.PrefixCatalog. Relations are keyed by OID so that a
// rename rewrites one value; the rest by name (their natural identity).
const (
	keyBootstrap = state.PrefixCatalog + "bootstrap"
	prefixDB     = state.PrefixCatalog + "db/"
	prefixSchema = state.PrefixCatalog + "ns/"
	prefixRel    = state.PrefixCatalog + "rel/"
	prefixRole   = state.PrefixCatalog + "role/"
)

func relKey(oid uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte(prefixRel), oid)
}

const oidCounter = "oid"

// Catalog is the in-memory image of the persisted catalog.
type Catalog struct {
	st      *state.Store
	version atomic.Uint64

	// mu guards the maps. Writers hold it across the store commit, so DDL
	// is serialised and memory never runs ahead of the store.
	mu        sync.RWMutex
	databases map[string]*Database
	schemas   map[string]*Schema
	rels      map[uint32]*Relation
	byName    map[string]map[string]*Relation // schema → name → relation
	roles     map[string]*Role
	members   map[memberPair]Membership
	sinks     map[uint32]*Sink   // sink.go
	secrets   map[string]*Secret // secret.go

	funcs map[uint32]*Function // function.go
}

// Open loads the catalog from st, creating the bootstrap objects (database
// weir, schemas pg_catalog, public and information_schema, superuser role
// weir) on first use.
func Open(st *state.Store) (*Catalog, error) {
	c := &Catalog{
		st:        st,
		databases: map[string]*Database{},
		schemas:   map[string]*Schema{},
		rels:      map[uint32]*Relation{},
		byName:    map[string]map[string]*Relation{},
		roles:     map[string]*Role{},
		members:   map[memberPair]Membership{},
	}
	if err := st.SetIDFloor(oidCounter, uint64(FirstUserOID)); err != nil {
		return nil, err
	}
	tx := st.Begin(false)
	_, err := tx.Get([]byte(keyBootstrap))
	tx.Discard()
	switch {
	case err == state.ErrNotFound:
		if err := c.bootstrap(); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	if err := c.storePredefinedMemberships(); err != nil {
		return nil, err
	}
	c.addPredefinedRoles()
	if err := c.load(); err != nil {
		return nil, err
	}
	c.version.Store(1)
	return c, nil
}

func (c *Catalog) bootstrap() error {
	dbOID, err := c.st.NextID(oidCounter)
	if err != nil {
		return err
	}
	tx := c.st.Begin(true)
	defer tx.Discard()
	puts := []struct {
		key string
		obj any
	}{
		{prefixDB + DefaultDB, &Database{OID: uint32(dbOID), Name: DefaultDB}},
		{prefixSchema + "pg_catalog", &Schema{OID: PGCatalogOID, Name: "pg_catalog", Owner: BootstrapRoleOID}},
		{prefixSchema + "public", &Schema{OID: PublicOID, Name: "public", Owner: DatabaseOwnerRoleOID}},
		{prefixSchema + "information_schema", &Schema{OID: InformationSchemaOID, Name: "information_schema", Owner: BootstrapRoleOID}},
		{prefixRole + BootstrapRole, &Role{OID: BootstrapRoleOID, Name: BootstrapRole, Superuser: true, CanLogin: true}},
	}
	for _, p := range puts {
		if err := putJSON(tx, []byte(p.key), p.obj); err != nil {
			return err
		}
	}
	// The marker goes in the same transaction: a crash leaves all or none.
	if err := tx.Set([]byte(keyBootstrap), []byte{1}); err != nil {
		return err
	}
	return tx.Commit()
}

func (c *Catalog) load() error {
	tx := c.st.Begin(false)
	defer tx.Discard()
	loadAll := func(prefix string, each func(v []byte) error) error {
		return tx.IteratePrefix([]byte(prefix), func(_, v []byte) error { return each(v) })
	}
	err := loadAll(prefixDB, func(v []byte) error {
		var d Database
		if err := unmarshal(v, &d); err != nil {
			return err
		}
		c.databases[d.Name] = &d
		return nil
	})
	if err == nil {
		err = loadAll(prefixSchema, func(v []byte) error {
			var s Schema
			if err := unmarshal(v, &s); err != nil {
				return err
			}
			c.schemas[s.Name] = &s
			return nil
		})
	}
	if err == nil {
		err = loadAll(prefixRel, func(v []byte) error {
			var r Relation
			if err := unmarshal(v, &r); err != nil {
				return err
			}
			c.addRel(&r)
			return nil
		})
	}
	if err == nil {
		err = c.loadSinks(tx) // sink.go
	}
	if err == nil {
		err = c.loadSecrets(tx) // secret.go
	}
	if err == nil {
		err = c.loadFunctions(tx) // function.go
	}
	if err == nil {
		err = loadAll(prefixRole, func(v []byte) error {
			var r Role
			if err := unmarshal(v, &r); err != nil {
				return err
			}
			c.roles[r.Name] = &r
			return nil
		})
	}
	if err == nil {
		err = loadAll(prefixMember, func(v []byte) error {
			var m Membership
			if err := unmarshal(v, &m); err != nil {
				return err
			}
			c.members[memberPair{m.Role, m.Member}] = m
			return nil
		})
	}
	return err
}

func putJSON(tx *state.Txn, key []byte, obj any) error {
	v, err := encodeJSON(obj)
	if err != nil {
		return err
	}
	return tx.Set(key, v)
}

func encodeJSON(obj any) ([]byte, error) {
	v, err := json.Marshal(obj)
	if err != nil {
		return nil, &sqlerr.Error{Code: sqlerr.InternalError, Message: "could not encode catalog object: " + err.Error()}
	}
	return v, nil
}

func unmarshal(v []byte, obj any) error {
	if err := json.Unmarshal(v, obj); err != nil {
		return &sqlerr.Error{Code: sqlerr.InternalError, Message: "corrupt catalog entry: " + err.Error()}
	}
	return nil
}

// commit runs write in one store transaction and, only if the commit
// succeeded, apply (which updates memory). Callers hold c.mu.
func (c *Catalog) commit(write func(tx *state.Txn) error, apply func()) error {
	tx := c.st.Begin(true)
	defer tx.Discard()
	if err := write(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	apply()
	c.version.Add(1)
	return nil
}

// Version changes on every catalog change; plans cached under one version
// are valid while it stays the same.
func (c *Catalog) Version() uint64 { return c.version.Load() }

// Databases returns all databases ordered by OID.
func (c *Catalog) Databases() []*Database {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Database, 0, len(c.databases))
	for _, d := range c.databases {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// Database returns the database called name.
func (c *Catalog) Database(name string) (*Database, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, ok := c.databases[name]
	return d, ok
}

// IsNotice reports whether err is a NOTICE rather than an error: an
// IF [NOT] EXISTS statement that had nothing to do. The client should get
// it as a NoticeResponse and the statement succeeds.
func IsNotice(err error) bool {
	e, ok := err.(*sqlerr.Error)
	return ok && e.Severity == "NOTICE"
}

func notice(code, format string, args ...any) *sqlerr.Error {
	e := sqlerr.New(code, format, args...)
	e.Severity = "NOTICE"
	return e
}
