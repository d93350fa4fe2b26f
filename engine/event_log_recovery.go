package engine

import (
	"fmt"
	"time"

	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/checkpoint"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// A job's start is two events: started, at once, saying how it will
// recover (the decision of recoverJob), and, when it had committed epochs,
// recovered, once the snapshot is restored and the logged epochs re-run,
// with how long that took; or failed, when recovery could not finish.

// recoveryNote is how a job recovers, as recoverJob decided it.
type recoveryNote struct {
	how      string // "none" (no epochs), "snapshot", "replay" (from empty state)
	snapshot int64  // the restored snapshot's epoch
	from, to int64  // the epochs re-run (none when from > to)
	logged   int    // committed epochs found
}

func (n recoveryNote) rerun() int64 { return max(n.to-n.from+1, 0) }

// noteRecovery keeps d for the started event of job oid.
func (e *Engine) noteRecovery(oid uint32, d checkpoint.Decision, logged int) {
	n := recoveryNote{how: "replay", snapshot: d.Snapshot, from: d.From, to: d.To, logged: logged}
	switch d.Action {
	case checkpoint.StartEmpty:
		n.how = "none"
	case checkpoint.RestoreSnapshot:
		n.how = "snapshot"
	}
	e.recoveries.Store(oid, n)
}

// snapshotRestored logs that job oid's state snapshot is loaded (its
// events come when the re-run ends).
func (e *Engine) snapshotRestored(oid uint32, epoch, later int64) {
	_, name, flow := e.jobOrigin(oid)
	e.logger().Info(fmt.Sprintf("streaming table %s: restored the state snapshot of epoch %d; re-running %d later epochs", name, epoch, later),
		"table", name, "flow", flow, "snapshot_epoch", epoch, "rerun_epochs", later)
}

// jobStarted emits job r's started event and, when it recovers committed
// epochs, waits in the background for the recovery's end to emit its
// recovered (or failed) event.
func (e *Engine) jobStarted(r *runner) {
	began := time.Now()
	v, _ := e.recoveries.LoadAndDelete(r.oid)
	n, _ := v.(recoveryNote)
	if n.how == "" {
		n.how = "none"
	}
	_, name, _ := e.jobOrigin(r.oid)
	kv := map[string]any{"recovery": n.how, "committed_epochs": n.logged}
	msg := "streaming table " + name + " started"
	switch n.how {
	case "snapshot":
		kv["snapshot_epoch"], kv["rerun_epochs"] = n.snapshot, n.rerun()
		msg += fmt.Sprintf(": restoring the state snapshot of epoch %d, then re-running %d epochs", n.snapshot, n.rerun())
	case "replay":
		kv["rerun_epochs"] = n.rerun()
		msg += fmt.Sprintf(": re-running %d of its %d committed epochs", n.rerun(), n.logged)
	}
	e.jobEvent(r.oid, eventlog.KindStarted, "", msg, kv, nil)
	if n.how == "none" || r.job == nil {
		return
	}
	go func() {
		select {
		case <-r.job.Recovered():
		case <-r.recoveryFailed:
			return // run reported it as failed
		case <-r.done:
			return
		case <-e.closing:
			return
		}
		d := time.Since(began)
		kv := map[string]any{"recovery": n.how, "rerun_epochs": n.rerun(), "duration_ms": float64(d.Microseconds()) / 1000,
			"epoch": r.job.Progress().Epoch}
		what := fmt.Sprintf("re-ran %d epochs from an empty state", n.rerun())
		if n.how == "snapshot" {
			kv["snapshot_epoch"] = n.snapshot
			what = fmt.Sprintf("restored the snapshot of epoch %d and re-ran %d epochs", n.snapshot, n.rerun())
		}
		e.jobEvent(r.oid, eventlog.KindRecovered, "", fmt.Sprintf("streaming table %s recovered in %.3f s: %s", name, d.Seconds(), what), kv, nil)
	}()
}

// startFailed records a job that could not start (its recovery or its
// plan failed).
func (e *Engine) startFailed(oid uint32, name string, err error) {
	e.jobEvent(oid, eventlog.KindFailed, eventlog.LevelError, "streaming table "+name+" could not start: "+sqlerr.From(err).Message, nil, err)
}
