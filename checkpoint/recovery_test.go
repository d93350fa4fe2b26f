package checkpoint

import "testing"

// epochs builds committed records whose latest has the given MinEpoch; the
// offsets are 10 per epoch.
func epochs(n int, minEpoch int64) []Epoch {
	out := make([]Epoch, n)
	for i := range out {
		out[i] = Epoch{Offsets: []int64{int64(10 * (i + 1))}, MinEpoch: 1}
	}
	if n > 0 {
		out[n-1].MinEpoch = minEpoch
	}
	return out
}

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Stored
		want Decision
	}{
		{"nothing committed", Stored{AppendMode: true},
			Decision{Action: StartEmpty, From: 1, To: 0, OutputStored: true}},
		{"nothing committed, update mode", Stored{},
			Decision{Action: StartEmpty, From: 1, To: 0, OutputStored: true}},
		{"append: snapshot right before MinEpoch", Stored{Epochs: epochs(5, 4), SnapshotEpoch: 3, OutputEpochs: 5, AppendMode: true},
			Decision{Action: RestoreSnapshot, Snapshot: 3, From: 4, To: 5, OutputStored: true}},
		{"append: state closed after epoch 3, older snapshot", Stored{Epochs: epochs(5, 4), SnapshotEpoch: 2, OutputEpochs: 5, AppendMode: true},
			Decision{Action: ResumeEmpty, From: 4, To: 5, OutputStored: true}},
		{"append: no state open at all", Stored{Epochs: epochs(5, 6), OutputEpochs: 5, AppendMode: true},
			Decision{Action: ResumeEmpty, From: 6, To: 5, OutputStored: true}},
		{"append: MinEpoch past the log is clamped", Stored{Epochs: epochs(5, 9), OutputEpochs: 5, AppendMode: true},
			Decision{Action: ResumeEmpty, From: 6, To: 5, OutputStored: true}},
		{"append: snapshot after the last epoch", Stored{Epochs: epochs(5, 6), SnapshotEpoch: 5, OutputEpochs: 5, AppendMode: true},
			Decision{Action: RestoreSnapshot, Snapshot: 5, From: 6, To: 5, OutputStored: true}},
		{"append: output not all stored re-runs all", Stored{Epochs: epochs(5, 4), SnapshotEpoch: 3, OutputEpochs: 2, AppendMode: true},
			Decision{Action: RerunAll, From: 1, To: 5, OutputStored: false}},
		{"append: MinEpoch 1", Stored{Epochs: epochs(3, 1), OutputEpochs: 3, AppendMode: true},
			Decision{Action: RerunAll, From: 1, To: 3, OutputStored: true}},
		{"append: MinEpoch 0 reads as 1", Stored{Epochs: epochs(3, 0), OutputEpochs: 3, AppendMode: true},
			Decision{Action: RerunAll, From: 1, To: 3, OutputStored: true}},
		{"update: snapshot restored", Stored{Epochs: epochs(5, 4), SnapshotEpoch: 3},
			Decision{Action: RestoreSnapshot, Snapshot: 3, From: 4, To: 5, OutputStored: false}},
		{"update: no snapshot re-runs all", Stored{Epochs: epochs(5, 4)},
			Decision{Action: RerunAll, From: 1, To: 5, OutputStored: false}},
		{"update: snapshot not the one MinEpoch names", Stored{Epochs: epochs(5, 5), SnapshotEpoch: 3},
			Decision{Action: RerunAll, From: 1, To: 5, OutputStored: false}},
		{"update: snapshot past the log is not trusted", Stored{Epochs: epochs(2, 4), SnapshotEpoch: 3},
			Decision{Action: RerunAll, From: 1, To: 2, OutputStored: false}},
		{"snapshot of an unreadable format counts as none", Stored{Epochs: epochs(5, 4), SnapshotEpoch: 0, OutputEpochs: 5, AppendMode: true},
			Decision{Action: ResumeEmpty, From: 4, To: 5, OutputStored: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide(tc.in); got != tc.want {
				t.Errorf("Decide(%+v)\n got %+v\nwant %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestDecisionRerun(t *testing.T) {
	recs := epochs(5, 4)
	d := Decision{Action: RestoreSnapshot, Snapshot: 3, From: 4, To: 5}
	got := d.Rerun(recs)
	if len(got) != 2 || got[0].Offset(0) != 40 || got[1].Offset(0) != 50 {
		t.Errorf("Rerun = %+v, want epochs 4 and 5", got)
	}
	if got := (Decision{From: 6, To: 5}).Rerun(recs); len(got) != 0 {
		t.Errorf("nothing to re-run, got %+v", got)
	}
	if got := (Decision{From: 1, To: 0}).Rerun(nil); len(got) != 0 {
		t.Errorf("empty log, got %+v", got)
	}
}
