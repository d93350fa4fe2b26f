package engine

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/kafka"
	"github.com/weir-sql/weir/state"
)

// A streaming table reading Kafka: each of its Kafka inputs (a read_kafka
// call, or a named Kafka source) is a kafka.Source of its own, with its
// own offset log under the table's files-log prefix (so DROP and CREATE OR
// REFRESH treat it as they treat a files log: dropFilesLogs,
// moveFilesLogs). The sources are closed when the table stops. After each
// step the sources' notices go to the event log and what keeps one from
// reading (an unreachable broker, a missing topic) shows as the table's
// last error while it keeps trying.

// kafkaOpened are the open Kafka sources, by streaming table OID.
type kafkaOpened struct {
	mu   sync.Mutex
	open map[uint32][]*kafkaInput
}

type kafkaInput struct {
	src     *kafka.Source
	rel     *catalog.Relation
	trouble string // the trouble last shown as the table's error
}

// kafkaPollInterval is how often a continuous table reading Kafka looks
// for records: the fetcher buffers them in the background, so a Read
// finding nothing is cheap.
const kafkaPollInterval = 50 * time.Millisecond

// kafkaLogKey is the key of reader's offset log for the Kafka source
// relation src: under state.FilesLogPrefix(reader), K, then i and the
// read_kafka call's position, or s and the named source's OID.
func kafkaLogKey(reader uint32, src *catalog.Relation) []byte {
	k := append(state.FilesLogPrefix(reader), 'K')
	if src.OID >= inlineOIDBase {
		k = append(k, 'i')
		return append(binary.BigEndian.AppendUint32(k, uint32(src.Source.Kafka.Input)), '/')
	}
	k = append(k, 's')
	return append(binary.BigEndian.AppendUint32(k, src.OID), '/')
}

// openKafkaInput opens the Kafka source src for the streaming table reader.
func (e *Engine) openKafkaInput(reader *catalog.Relation, src *catalog.Relation, schema *arrow.Schema) connector.Source {
	def := src.Source.Kafka
	role := src.Owner // a named source runs as its owner, an inline read_kafka as its table's
	if role == 0 {
		role = reader.Owner
	}
	o, err := e.kafkaOptions(role, def.Options)
	if err != nil {
		return failingSource{err}
	}
	tune := kafka.Tuning{TimestampWatermark: def.Format == "raw" && src.Source.WatermarkColumn == "timestamp"}
	ks, err := kafka.Open(e.store, kafkaLogKey(reader.OID, src), o, kafkaSchema(def), tune)
	if err != nil {
		return failingSource{err}
	}
	e.kafkaOpen.mu.Lock()
	if e.kafkaOpen.open == nil {
		e.kafkaOpen.open = map[uint32][]*kafkaInput{}
	}
	e.kafkaOpen.open[reader.OID] = append(e.kafkaOpen.open[reader.OID], &kafkaInput{src: ks, rel: src})
	e.kafkaOpen.mu.Unlock()
	return relabel{ks, schema} // source_input.go
}

// closeKafkaInputs closes the Kafka sources of streaming table oid.
func (e *Engine) closeKafkaInputs(oid uint32) {
	e.kafkaOpen.mu.Lock()
	ins := e.kafkaOpen.open[oid]
	delete(e.kafkaOpen.open, oid)
	e.kafkaOpen.mu.Unlock()
	for _, in := range ins {
		in.src.Close()
	}
}

func (e *Engine) kafkaInputsOf(oid uint32) []*kafkaInput {
	e.kafkaOpen.mu.Lock()
	defer e.kafkaOpen.mu.Unlock()
	return append([]*kafkaInput(nil), e.kafkaOpen.open[oid]...)
}

// kafkaLag is every partition's lag of streaming table oid's Kafka
// inputs.
func (e *Engine) kafkaLag(oid uint32) []kafka.PartitionLag {
	var out []kafka.PartitionLag
	for _, in := range e.kafkaInputsOf(oid) {
		out = append(out, in.src.Lag()...)
	}
	return out
}

// kafkaAfterStep runs after each step of a streaming table's job: the
// notices of its Kafka inputs into the event log, and their trouble as
// the table's last error (cleared once they read again).
func (r *runner) kafkaAfterStep() {
	ins := r.eng.kafkaInputsOf(r.oid)
	if len(ins) == 0 {
		return
	}
	var troubles []string
	changed := false
	for _, in := range ins {
		for _, n := range in.src.Notices() {
			details, _ := json.Marshal(struct {
				Notice string `json:"notice"`
				Source string `json:"source"`
			}{n.Kind, in.rel.Name})
			ev := eventlog.Event{Time: n.Time, Object: r.oid, Name: r.eng.relName(r.oid, r.name), Kind: "kafka", Level: eventlog.LevelWarn,
				Message: n.Message, Details: string(details)}
			if err := eventlog.Append(r.eng.store, ev); err != nil {
				r.eng.logger().Warn("could not record a kafka notice", "table", r.name, "err", err)
			}
		}
		t := in.src.Trouble()
		if t != in.trouble {
			in.trouble, changed = t, true
		}
		if t != "" {
			troubles = append(troubles, t)
		}
	}
	if !changed {
		return
	}
	if status, _ := r.state(); status == statusRunning || status == statusIdle {
		r.setStatus(status, strings.Join(troubles, "; "))
	}
}

// kafkaStreamingDetails are DESCRIBE EXTENDED's rows of a streaming
// table's Kafka inputs: each partition's position, end and lag.
func (s *Session) kafkaStreamingDetails(rel *catalog.Relation) [][2]string {
	var out [][2]string
	for _, in := range s.eng.kafkaInputsOf(rel.OID) {
		name := in.rel.Name
		if in.rel.OID >= inlineOIDBase {
			name = "read_kafka"
		}
		for _, l := range in.src.Lag() {
			end := "unknown"
			if l.End >= 0 {
				end = strconv.FormatInt(l.End, 10)
			}
			out = append(out, [2]string{fmt.Sprintf("Kafka Input %s %s/%d", name, l.Topic, l.Partition),
				fmt.Sprintf("position %d, end %s, lag %d", l.Position, end, l.Lag)})
		}
		if t := in.src.Trouble(); t != "" {
			out = append(out, [2]string{"Kafka Input " + name + " Trouble", t})
		}
	}
	return out
}
