package expr

import "github.com/apache/arrow-go/v18/arrow/memory"

func defaultMem() memory.Allocator { return memory.DefaultAllocator }
