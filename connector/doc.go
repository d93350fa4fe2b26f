// Package connector holds the contracts between a streaming table and the
// world outside its operators: a Source is where its input comes from (a
// log it reads from an offset), a Sink is where its output goes (epoch by
// epoch). The contracts are written beside the interfaces (source.go,
// sink.go), with the typed options every connector parses (options.go).
//
// Implementations live in subpackages, one connector each: tablelog (the
// input-table log, the first source, with input retention), tableout (the
// stored streaming-table output, the first sink). sourcetest is the
// conformance test every Source runs.
//
// connector imports sql/types and state only (design.md): it knows nothing
// of plans, operators or the checkpoint; the engine wires sources and
// sinks to a job and the job's commits to the checkpoint.
package connector
