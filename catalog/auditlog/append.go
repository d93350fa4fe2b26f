package auditlog

import "time"

// Append writes evs in one transaction and returns them with their
// sequence numbers. A zero Time is now.
func (l *Log) Append(evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	tx := l.st.Begin(true)
	defer tx.Discard()
	var newest uint64
	for i := range evs {
		seq, err := l.st.NextID(seqName)
		if err != nil {
			return err
		}
		ev := &evs[i]
		ev.Seq = seq
		if ev.Time.IsZero() {
			ev.Time = time.Now()
		}
		if err := tx.Set(key(seq), encode(ev)); err != nil {
			return err
		}
		newest = seq
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	l.noteSeq(newest)
	return nil
}

// noteSeq raises last to seq.
func (l *Log) noteSeq(seq uint64) {
	for {
		cur := l.last.Load()
		if seq <= cur || l.last.CompareAndSwap(cur, seq) {
			return
		}
	}
}
