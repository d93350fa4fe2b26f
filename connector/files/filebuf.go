package files

import (
	"io"
	"os"
	"sync"
)

// File contents are read into buffers kept for reuse: decoding reads each
// file whole (and inference each sampled file), and nothing decoded
// points into the text (builders copy what they take), so a buffer can
// serve the next file once a decode is done. Without reuse every file is
// a fresh allocation of its size, zeroed, that the garbage collector then
// has to catch up with: for JSON as many bytes as the data.

var fileBufs sync.Pool // of *[]byte

// maxKeptBuf bounds the buffers kept: a very large file's is left to the
// collector rather than held for the next file.
const maxKeptBuf = 64 << 20

func putBuf(bp *[]byte, buf []byte) {
	if cap(buf) <= maxKeptBuf {
		*bp = buf
		fileBufs.Put(bp)
	}
}

// readWhole reads the file at path, at most limit bytes (limit < 0: all),
// into a reused buffer; done gives the buffer back (the bytes must not be
// used after).
func readWhole(path string, limit int64) (data []byte, done func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Size() >= 0 {
		size = fi.Size()
	}
	if limit >= 0 {
		size = min(size, limit)
	}
	bp, _ := fileBufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	buf := *bp
	if int64(cap(buf)) < size+1 {
		buf = make([]byte, 0, size+1)
	}
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grew since the stat
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			putBuf(bp, buf)
			return nil, nil, err
		}
	}
	return buf, func() { putBuf(bp, buf) }, nil
}
