package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/kafka"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// CREATE SINK name FROM table WITH (connector = 'kafka', topic = ...,
// bootstrap_servers = ..., format = 'json' [, key = 'col, ...']
// [, progress_topic = ...] [, kafka.sasl.* ...]): a streaming table's
// changes to a Kafka topic, one Kafka transaction per epoch
// (connector/kafka's Sink). Records are keyed by the key columns (the
// table's primary key when key is not given); an update- or
// complete-mode table's changes are upserts and tombstones by that key,
// so such a table needs one.

func (s *Session) kafkaSinkDefinition(def *catalog.Sink, opts map[string]string) (*catalog.Sink, error) {
	k := &catalog.KafkaSink{Format: "json"}
	var names []string
	for n := range opts {
		names = append(names, n)
	}
	sort.Strings(names)
	client := map[string]string{}
	for _, n := range names {
		v := opts[n]
		switch strings.ToLower(n) {
		case "connector":
		case "topic":
			k.Topic = v
		case "format":
			if !strings.EqualFold(v, "json") {
				return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"format\": \"%s\"", v).WithHint("A Kafka sink writes json.")
			}
		case "key":
			for _, c := range strings.Split(v, ",") {
				if c = strings.TrimSpace(c); c != "" {
					k.Key = append(k.Key, c)
				}
			}
		case "progress_topic":
			k.ProgressTopic = v
		default:
			c := kafka.Canonical(n)
			if c == "" || c == "subscribe" || c == "subscribePattern" || c == "assign" || c == "startingOffsets" || c == "startingTimestamp" || c == "maxOffsetsPerTrigger" {
				return nil, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized option \"%s\" of a Kafka sink", n).
					WithHint("A Kafka sink takes topic, bootstrap_servers, format (json), key, progress_topic and the kafka.sasl.* and kafka.security.protocol client options.")
			}
			k.Options = append(k.Options, catalog.FilesOption{Name: n, Value: v})
			client[n] = v
		}
	}
	if k.Topic == "" {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "option \"topic\" is required").WithHint("The topic the records go to, e.g. topic = 'orders_5m'.")
	}
	o, err := s.eng.kafkaSinkClient(s.currentRoleOID(), k)
	if err != nil {
		return nil, err
	}
	if err := kafka.CheckSink(context.Background(), o, k.Topic); err != nil {
		return nil, err
	}
	def.Kafka = k
	return def, nil
}

// kafkaSinkClient is a sink's client options, secrets resolved for role
// (the sink's owner).
func (e *Engine) kafkaSinkClient(role uint32, k *catalog.KafkaSink) (kafka.Options, error) {
	m := map[string]string{"subscribe": k.Topic}
	for _, o := range k.Options {
		m[o.Name] = o.Value
	}
	m, err := e.resolveSecrets(role, m) // secrets.go: role needs USAGE on the secrets named
	if err != nil {
		return kafka.Options{}, err
	}
	return kafka.ParseOptions(m)
}

// checkKafkaSink completes a Kafka sink's definition once its table is
// known: the key columns exist (or come from the primary key), a table
// that is not append-only has a key, and the transactional id is fixed.
func (s *Session) checkKafkaSink(def *catalog.Sink, from *catalog.Relation) error {
	k := def.Kafka
	if len(k.Key) == 0 {
		k.Key = append([]string(nil), from.PrimaryKey...)
	}
	for _, c := range k.Key {
		if from.Column(c) < 0 {
			return sqlerr.New(sqlerr.UndefinedColumn, "key column \"%s\" does not exist in streaming table %s", c, from.Name)
		}
	}
	if len(k.Key) == 0 && from.Streaming != nil && from.Streaming.OutputMode != planner.AppendMode {
		return sqlerr.New(sqlerr.InvalidParameterValue, "a Kafka sink of %s, whose rows change, needs a key", from.Name).
			WithHint("Give key = 'column, ...' (the columns that identify a row, such as the GROUP BY columns), or declare the table's PRIMARY KEY.")
	}
	// Unique per CREATE: a sink made again under a dropped one's name
	// must not take that one's committed epochs for its own.
	k.TransactionID = fmt.Sprintf("weir-sink-%s.%s-%d", def.Schema, def.Name, time.Now().UnixNano())
	return nil
}

// kafkaSinksOpen are the open Kafka sinks by transactional id: a table's
// restart opens its sinks again, and the old client is closed then.
var kafkaSinksOpen sync.Map // transactional id → *kafka.Sink

// openKafkaSink opens a stored Kafka sink for its table's job.
func (e *Engine) openKafkaSink(def *catalog.Sink, table *catalog.Relation, mode string, schema *arrow.Schema) (connector.Sink, error) {
	k := def.Kafka
	o, err := e.kafkaSinkClient(def.Owner, k)
	if err != nil {
		return nil, err
	}
	cols := sinkColumns(table, mode) // sinks.go
	cfg := kafka.SinkConfig{Topic: k.Topic, ProgressTopic: k.ProgressTopic, TransactionID: k.TransactionID, Changes: mode != planner.AppendMode}
	names := make([]string, len(cols))
	ts := make([]types.T, len(cols))
	for i, c := range cols {
		names[i], ts[i] = c.Name, c.Type
		switch c.Name {
		case changeTypeColumn:
			if cfg.Changes {
				cfg.ChangeTypeCol = i
				continue
			}
		case commitVersionColumn:
			if cfg.Changes {
				continue
			}
		}
		if i < len(table.Columns) {
			cfg.DataCols = append(cfg.DataCols, i)
		}
	}
	for _, kc := range k.Key {
		cfg.KeyCols = append(cfg.KeyCols, table.Column(kc))
	}
	ctx := e.systemSession().exprCtx(nil)
	cfg.JSON = func(buf []byte, idx []int, arrs []arrow.Array, i int) []byte {
		n := make([]string, len(idx))
		t := make([]types.T, len(idx))
		a := make([]arrow.Array, len(idx))
		for j, c := range idx {
			n[j], t[j], a[j] = names[c], ts[c], arrs[c]
		}
		return expr.AppendRowJSON(ctx, buf, n, t, a, i)
	}
	if old, ok := kafkaSinksOpen.LoadAndDelete(k.TransactionID); ok {
		old.(*kafka.Sink).Close()
	}
	s, err := kafka.OpenSink(context.Background(), o, cfg)
	if err != nil {
		return nil, err
	}
	kafkaSinksOpen.Store(k.TransactionID, s)
	return s, nil
}

// kafkaSinkOptionsText is a Kafka sink's options as SHOW SINKS prints
// them (no credentials).
func kafkaSinkOptionsText(def *catalog.Sink) []string {
	k := def.Kafka
	if k == nil {
		return nil
	}
	kv := []string{"topic=" + k.Topic, "format=" + k.Format}
	for _, o := range k.Options {
		if c := kafka.Canonical(o.Name); c == "bootstrapServers" {
			kv = append(kv, "bootstrap_servers="+o.Value)
		}
	}
	if len(k.Key) > 0 {
		kv = append(kv, "key="+strings.Join(k.Key, ","))
	}
	return kv
}

// closeKafkaSink closes a dropped sink's client, if it is open.
func closeKafkaSink(def *catalog.Sink) {
	if def.Kafka == nil {
		return
	}
	if s, ok := kafkaSinksOpen.LoadAndDelete(def.Kafka.TransactionID); ok {
		s.(*kafka.Sink).Close()
	}
}
