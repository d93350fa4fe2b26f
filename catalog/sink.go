package catalog

import (
	"encoding/binary"
	"sort"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Sink is a CREATE SINK: a streaming table's changes delivered outside
// weir through a connector. Sinks have a namespace of their own in each
// schema (as RisingWave's), are persisted under c/sink/<oid> and depend
// on the streaming table they read (From): DROP STREAMING TABLE refuses
// while sinks read it, unless CASCADE.
type Sink struct {
	OID     uint32
	Schema  string
	Name    string
	Owner   uint32
	Created time.Time
	// From is the OID of the streaming table the sink reads.
	From uint32
	// Connector is "files" (the only one that runs yet).
	Connector string
	// Files is the files connector's options (Connector "files").
	Files *FilesSink `json:",omitempty"`
	// Iceberg is the iceberg connector's options (Connector "iceberg").
	Iceberg *IcebergSink `json:",omitempty"`
	// Kafka is the kafka connector's options (Connector "kafka").
	Kafka *KafkaSink `json:",omitempty"` // kafka_source.go
	// Definition is the CREATE SINK statement as written.
	Definition string
	// EpochBase is added to the table's epoch numbers to make the sink's:
	// REFRESH ... FULL starts the table's epochs again from 1, and the
	// sink's go on after the last it committed.
	EpochBase int64 `json:",omitempty"`
}

// FilesSink is the files connector's options, checked at CREATE SINK
// (connector/filesink documents each).
type FilesSink struct {
	Path           string   // absolute: resolved at CREATE SINK
	Format         string   // parquet, json, csv
	TargetFileSize int64    // bytes
	PartitionBy    []string `json:",omitempty"`
}

const prefixSink = state.PrefixCatalog + "sink/"

func sinkKey(oid uint32) []byte { return binary.BigEndian.AppendUint32([]byte(prefixSink), oid) }

func (s *Sink) clone() *Sink {
	c := *s
	if s.Files != nil {
		f := *s.Files
		f.PartitionBy = append([]string(nil), s.Files.PartitionBy...)
		c.Files = &f
	}
	if s.Iceberg != nil {
		i := *s.Iceberg
		c.Iceberg = &i
	}
	c.Kafka = s.Kafka.clone() // kafka_source.go
	return &c
}

// loadSinks reads the stored sinks (at Open).
func (c *Catalog) loadSinks(tx *state.Txn) error {
	c.sinks = map[uint32]*Sink{}
	return tx.IteratePrefix([]byte(prefixSink), func(_, v []byte) error {
		var s Sink
		if err := unmarshal(v, &s); err != nil {
			return err
		}
		c.sinks[s.OID] = &s
		return nil
	})
}

// CreateSink stores a copy of s under a fresh OID and returns it. Schema
// "" means public; the streaming table From must exist. With ifNotExists,
// an existing sink of that name is returned with a NOTICE error.
func (c *Catalog) CreateSink(s *Sink, ifNotExists bool) (*Sink, error) {
	r := s.clone()
	if r.Schema == "" {
		r.Schema = "public"
	}
	if r.Owner == 0 {
		r.Owner = BootstrapRoleOID
	}
	if r.Created.IsZero() {
		r.Created = time.Now().UTC()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.schemas[r.Schema]; !ok {
		return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", r.Schema)
	}
	if from, ok := c.rels[r.From]; !ok || from.Kind != KindStreamingTable {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "streaming table with OID %d does not exist", r.From)
	}
	if old := c.sinkLocked(r.Schema, r.Name); old != nil {
		if ifNotExists {
			return old, notice(sqlerr.DuplicateObject, "sink \"%s\" already exists, skipping", r.Name)
		}
		return nil, sqlerr.New(sqlerr.DuplicateObject, "sink \"%s\" already exists", r.Name)
	}
	oid, err := c.st.NextID(oidCounter)
	if err != nil {
		return nil, err
	}
	r.OID = uint32(oid)
	err = c.commit(
		func(tx *state.Txn) error { return putJSON(tx, sinkKey(r.OID), r) },
		func() { c.sinks[r.OID] = r })
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (c *Catalog) sinkLocked(schema, name string) *Sink {
	for _, s := range c.sinks {
		if s.Schema == schema && s.Name == name {
			return s
		}
	}
	return nil
}

// LookupSink finds sink name in schema or, if schema is "", in the first
// schema of searchPath that has one. Unknown: 42704, as PostgreSQL says
// of objects that are not relations.
func (c *Catalog) LookupSink(searchPath []string, schema, name string) (*Sink, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if schema != "" {
		if s := c.sinkLocked(schema, name); s != nil {
			return s, nil
		}
	} else {
		for _, sp := range searchPath {
			if s := c.sinkLocked(sp, name); s != nil {
				return s, nil
			}
		}
	}
	return nil, sqlerr.New(sqlerr.UndefinedObject, "sink \"%s\" does not exist", name)
}

// DropSink drops sink oid.
func (c *Catalog) DropSink(oid uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sinks[oid]
	if !ok {
		return sqlerr.New(sqlerr.UndefinedObject, "sink with OID %d does not exist", oid)
	}
	return c.commit(func(tx *state.Txn) error { return tx.Delete(sinkKey(s.OID)) },
		func() { delete(c.sinks, s.OID) })
}

// SetSinkEpochBase stores sink oid's EpochBase.
func (c *Catalog) SetSinkEpochBase(oid uint32, base int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.sinks[oid]
	if !ok {
		return sqlerr.New(sqlerr.UndefinedObject, "sink with OID %d does not exist", oid)
	}
	s := old.clone()
	s.EpochBase = base
	return c.commit(func(tx *state.Txn) error { return putJSON(tx, sinkKey(s.OID), s) },
		func() { c.sinks[s.OID] = s })
}

// Sinks returns every sink ordered by OID.
func (c *Catalog) Sinks() []*Sink {
	c.mu.RLock()
	out := make([]*Sink, 0, len(c.sinks))
	for _, s := range c.sinks {
		out = append(out, s)
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// SinksOf returns the sinks that read streaming table oid, by OID.
func (c *Catalog) SinksOf(oid uint32) []*Sink {
	var out []*Sink
	for _, s := range c.Sinks() {
		if s.From == oid {
			out = append(out, s)
		}
	}
	return out
}
