package exec

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// emptyArrays holds one zero-length array per data type (by fingerprint).
// Building one costs about a microsecond a column (array.MakeArrayOfNull),
// and a small catalog join builds many: a join whose build side is empty
// concatenates zero batches of a schema of a hundred columns or more, which
// was a sixth of pgjdbc's getImportedKeys. The cache keeps a reference to
// each array, so the ones handed out (retained) are never freed under a
// holder.
var emptyArrays sync.Map // string → arrow.Array

// emptyArray returns a retained zero-length array of type dt; the caller
// releases it as any other.
func emptyArray(dt arrow.DataType) arrow.Array {
	key := dt.Fingerprint()
	if a, ok := emptyArrays.Load(key); ok {
		arr := a.(arrow.Array)
		arr.Retain()
		return arr
	}
	arr := array.MakeArrayOfNull(memory.DefaultAllocator, dt, 0)
	if prev, loaded := emptyArrays.LoadOrStore(key, arr); loaded {
		arr.Release()
		arr = prev.(arrow.Array)
	}
	arr.Retain()
	return arr
}
