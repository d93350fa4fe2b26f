package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// defaultQueryMemory is a quarter of the memory this process may use: the
// machine's physical RAM, or the cgroup's limit when that is smaller. A
// quarter leaves the rest to Badger's caches and memtables, streaming
// state, the Go runtime's headroom (the heap may reach about twice the live
// data before a collection) and the other programs of the machine; it is
// what PostgreSQL's tuning guides give shared_buffers plus work_mem, and
// one query cannot take the machine down with it. 0 when neither is known
// (no bound).
func defaultQueryMemory() int64 {
	total := memTotal()
	if cg := cgroupLimit(); cg > 0 && (total == 0 || cg < total) {
		total = cg
	}
	return total / 4
}

// memTotal reads MemTotal from /proc/meminfo, in bytes.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// cgroupLimit reads the cgroup v2 (or v1) memory limit, in bytes; 0 when
// there is none.
func cgroupLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && n < 1<<60 {
			return n
		}
	}
	return 0
}
