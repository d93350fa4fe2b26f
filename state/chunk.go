package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// A chunk value is a fixed header followed by an Arrow IPC stream (schema
// message + one record batch, uncompressed: decoding speed matters more
// than disk here, and scans are served from the cache anyway).
//
//	[0]     format version (2; 1 = written before chunks had a checksum)
//	[1:9]   commit group, u64 BE; 0 = committed in one transaction
//	[9:17]  row count, u64 BE, so that TableStats need not decode
//	[17:21] CRC-32C (Castagnoli), u32 BE, of bytes [21:] followed by
//	        bytes [0:17]: the stream and the header both (format 2 only)
//
// Badger checksums its own blocks and value-log entries too, but those
// checks cover only what Badger itself reads back; the chunk checksum is
// end to end, from the encoder to every decode, and it is what `weir
// verify` checks for each table. Format 1 chunks (data directories written
// before the checksum) are still read, unchecked: the format byte was
// there for this, and rewriting a directory just to add checksums would
// buy nothing over Badger's own checks, which do cover format 1 chunks.
const (
	chunkFormatV1    = 1
	chunkFormat      = 2
	chunkHeaderLenV1 = 17
	chunkHeaderLen   = 21
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// putChunkHeader stamps the header of an encoded chunk; payloadCRC is the
// CRC-32C of data[chunkHeaderLen:], computed once by encodeChunk, so that
// stamping a commit group does not read the stream again.
func putChunkHeader(b []byte, group uint64, rows int64, payloadCRC uint32) {
	b[0] = chunkFormat
	binary.BigEndian.PutUint64(b[1:9], group)
	binary.BigEndian.PutUint64(b[9:17], uint64(rows))
	binary.BigEndian.PutUint32(b[17:21], crc32.Update(payloadCRC, castagnoli, b[:17]))
}

// chunkHeader is a parsed chunk header.
type chunkHeader struct {
	format uint8
	group  uint64
	rows   int64
}

// errChunk* are the reasons a chunk value is damaged; they reach clients as
// XX001 (see corruption.go).
var (
	errChunkFormat   = errors.New("unknown chunk format")
	errChunkChecksum = errors.New("data checksum mismatch")
)

func parseChunkHeader(b []byte) (chunkHeader, error) {
	if len(b) < chunkHeaderLenV1 {
		return chunkHeader{}, errChunkFormat
	}
	h := chunkHeader{format: b[0], group: binary.BigEndian.Uint64(b[1:9]), rows: int64(binary.BigEndian.Uint64(b[9:17]))}
	switch h.format {
	case chunkFormatV1:
		return h, nil
	case chunkFormat:
		if len(b) < chunkHeaderLen {
			return chunkHeader{}, errChunkFormat
		}
		return h, nil
	}
	return chunkHeader{}, errChunkFormat
}

// checkChunk verifies a chunk's checksum (format 2; format 1 has none).
func checkChunk(b []byte) error {
	h, err := parseChunkHeader(b)
	if err != nil {
		return err
	}
	if h.format == chunkFormatV1 {
		return nil
	}
	got := crc32.Update(crc32.Checksum(b[chunkHeaderLen:], castagnoli), castagnoli, b[:17])
	if got != binary.BigEndian.Uint32(b[17:21]) {
		return errChunkChecksum
	}
	return nil
}

// encodeChunk encodes b with room for the header, and returns the CRC-32C
// of the stream for putChunkHeader.
func encodeChunk(b arrow.RecordBatch) ([]byte, uint32, error) {
	var buf bytes.Buffer
	// Room for the columns' buffers plus the IPC framing, so that a large
	// batch is not copied over and over as the buffer doubles.
	// The buffers of a slice are the whole array's: cap the estimate by a
	// generous per-value size, past which the buffer grows as it must.
	size := 0
	for _, c := range b.Columns() {
		size += dataBytes(c.Data())
	}
	size = min(size, int(b.NumRows())*int(b.NumCols())*64)
	buf.Grow(chunkHeaderLen + 4096 + size + size/16)
	buf.Write(make([]byte, chunkHeaderLen))
	w := ipc.NewWriter(&buf, ipc.WithSchema(b.Schema()))
	if err := w.Write(b); err != nil {
		return nil, 0, &sqlerr.Error{Code: sqlerr.InternalError, Message: "could not encode table chunk: " + err.Error()}
	}
	if err := w.Close(); err != nil {
		return nil, 0, &sqlerr.Error{Code: sqlerr.InternalError, Message: "could not encode table chunk: " + err.Error()}
	}
	data := buf.Bytes()
	return data, crc32.Checksum(data[chunkHeaderLen:], castagnoli), nil
}

// dataBytes is the size of an array's buffers (an upper bound of what IPC
// writes for it, before padding).
func dataBytes(d arrow.ArrayData) int {
	n := 0
	for _, b := range d.Buffers() {
		if b != nil {
			n += b.Len() + 64 // IPC pads each buffer to 64 bytes
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}

// decodeChunk checks and decodes a chunk value. A damaged format 1 chunk
// (no checksum) can make the IPC reader fail or even panic: both are
// reported as damage, and the decoded row count must match the header's.
func decodeChunk(data []byte) (arrow.RecordBatch, error) {
	if err := checkChunk(data); err != nil {
		return nil, err
	}
	return decodeCheckedChunk(data)
}

// decodeCheckedChunk is decodeChunk after checkChunk.
func decodeCheckedChunk(data []byte) (rec arrow.RecordBatch, err error) {
	h, err := parseChunkHeader(data)
	if err != nil {
		return nil, err
	}
	payload := data[chunkHeaderLen:]
	if h.format == chunkFormatV1 {
		payload = data[chunkHeaderLenV1:]
	}
	defer func() {
		if p := recover(); p != nil {
			if rec != nil {
				rec.Release()
			}
			rec, err = nil, fmt.Errorf("undecodable chunk: %v", p)
		}
	}()
	r, err := ipc.NewReader(bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("undecodable chunk: %w", err)
	}
	defer r.Release()
	if !r.Next() {
		if r.Err() != nil {
			return nil, fmt.Errorf("undecodable chunk: %w", r.Err())
		}
		return nil, errors.New("undecodable chunk: it holds no record batch")
	}
	rec = r.RecordBatch()
	rec.Retain()
	if rec.NumRows() != h.rows {
		rec.Release()
		return nil, fmt.Errorf("undecodable chunk: %d rows where its header says %d", rec.NumRows(), h.rows)
	}
	return rec, nil
}
