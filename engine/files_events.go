package engine

import (
	"encoding/json"
	"sync/atomic"

	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/connector/files"
)

// Files inputs' notices (a file that vanished before it was read, one
// changed after it was read, one that cannot be read, a damaged one
// skipped, a folder that cannot be listed) in the durable event log, as
// files events of the streaming table reading them; nothing stopped
// because of them. A schema version recorded is the schema_change event
// the restart on it writes (files_evolve.go).

// logFilesNotices appends the notices ins gave since the last call.
func (e *Engine) logFilesNotices(oid uint32, name string, ins []*filesInput) {
	for _, in := range ins {
		for _, n := range in.src.Notices() {
			if n.Kind == files.NoticeSchema {
				if !in.evolves {
					// Recorded, not applied (declared columns, a named source a
					// declared reader or a flow keeps): the restart's event
					// says it otherwise.
					e.logRecordedSchema(oid, name, in, n)
				}
				continue
			}
			in.counted(n.Kind)
			details, _ := json.Marshal(struct {
				Notice string `json:"notice"`
				Path   string `json:"path"`
				Source string `json:"source"`
			}{n.Kind, n.Path, in.rel.Source.Files.Path})
			ev := eventlog.Event{Time: n.Time, Object: oid, Name: e.relName(oid, name), Kind: eventlog.KindFiles, Level: eventlog.LevelWarn,
				Message: n.Message, Details: string(details)}
			if err := eventlog.Append(e.store, ev); err != nil {
				e.logger().Warn("could not record a files notice", "table", name, "err", err)
			}
		}
	}
}

// filesIssueCounts are a files input's notices by kind since it opened.
type filesIssueCounts struct {
	vanished, changed, unreadable, damaged atomic.Int64
}

func (in *filesInput) counted(kind string) {
	switch kind {
	case files.NoticeVanished:
		in.issues.vanished.Add(1)
	case files.NoticeChanged:
		in.issues.changed.Add(1)
	case files.NoticeUnreadable:
		in.issues.unreadable.Add(1)
	case files.NoticeDamaged:
		in.issues.damaged.Add(1)
	}
}

// filesSkipped is the files streaming table oid's files inputs reported
// and did not read (vanished, changed after reading, unreadable, damaged)
// since the table started (streaming_progress).
func (e *Engine) filesSkipped(oid uint32) (n int64, ok bool) {
	for _, in := range e.filesInputsOf(oid) {
		n += in.issues.vanished.Load() + in.issues.changed.Load() + in.issues.unreadable.Load() + in.issues.damaged.Load()
		ok = true
	}
	return n, ok
}

// logRecordedSchema is the schema_change event of a version a files
// input recorded and does not run on.
func (e *Engine) logRecordedSchema(oid uint32, name string, in *filesInput, n files.Notice) {
	details, _ := json.Marshal(struct {
		Path    string `json:"path"`
		File    string `json:"file"`
		Applied bool   `json:"applied"`
	}{in.rel.Source.Files.Path, n.Path, false})
	ev := eventlog.Event{Time: n.Time, Object: oid, Name: e.relName(oid, name), Kind: eventlog.KindSchemaChange, Level: eventlog.LevelInfo,
		Message: n.Message + " (not applied: the input keeps its schema; its new fields are in the rescued-data column)", Details: string(details)}
	if err := eventlog.Append(e.store, ev); err != nil {
		e.logger().Warn("could not record a schema notice", "table", name, "err", err)
	}
}
