// Package checkpoint owns what makes a streaming table's epoch durable and
// how a restart continues from it:
//
//   - the epoch commit record (epoch.go, commit.go): every source's offset
//     at the end of the epoch, the watermark, the first epoch a restart must
//     re-run, the progress counts; the reference to the operator-state
//     snapshot; written in the same state transaction as the sinks' staged
//     output, so an epoch is all there or not at all;
//   - recovery as a pure decision (recovery.go): from what is stored (the
//     epoch records, the snapshot record, the output sink's progress) to
//     what to do (start empty, restore snapshot S and re-run epochs N..M,
//     re-run from an empty state after epoch N-1, or re-run all), testable
//     without a running job;
//   - the identity check (identity.go): whether a replacing definition may
//     keep the checkpoint of the one it replaces;
//   - retention's resume guard (resume.go): the offsets a restart would
//     re-read from, below which retention may remove input.
//
// The keys are laid out (and documented in full) in state/keys.go: e/ for
// the epoch records and their companions. checkpoint imports only state:
// it does not know operators (exec) or sources (connector); the engine
// translates between the job's view of an epoch and this record.
package checkpoint
