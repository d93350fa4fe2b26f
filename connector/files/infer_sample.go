package files

import (
	"runtime"
	"strings"
	"sync"
)

// Sampling for inference, file by file and on every core. Infer reads
// the whole sample (Databricks' default is 1000 files or 50 GB), so at a
// CREATE over a folder of data it reads as many bytes as the table will:
// it must cost little per value and use both cores.
//
// Each file is observed on its own (fileFields: its fields by exact name,
// first seen first, kinds widened), then the files are merged into the
// fieldSet in listing order. That gives the schema a single pass would:
// widen is the join of a lattice (null < bool, int < double, date <
// timestamp, jsonb < text), so widening per file then across files is
// widening in any order, and merging exact names in file order meets
// every spelling of a name in the order a single pass meets it.

// fileFields are one file's fields: exact names in the order first seen,
// each with its kind widened over the file.
type fileFields struct {
	names []string
	kinds []inferKind
	idx   map[string]int // exact name -> index
	// fixed[i]: field i's kind cannot change any more (text, the top), or
	// does not matter (a schema hint gives its type): its values are not
	// classified.
	fixed []bool
	// hinted are the hints' names, lower-cased (applyHints matches them
	// ignoring case).
	hinted map[string]bool
	// at[k] is the field the previous record had at position k: records
	// of one file mostly repeat their fields in one order.
	at []int
}

func newFileFields(hinted map[string]bool) *fileFields {
	return &fileFields{idx: map[string]int{}, hinted: hinted}
}

// field returns the index of the field named name seen at position k of
// a record, adding it (kind null) when new.
func (ff *fileFields) field(k int, name []byte) int {
	if k < len(ff.at) {
		if i := ff.at[k]; i >= 0 && ff.names[i] == string(name) {
			return i
		}
	}
	i, ok := ff.idx[string(name)]
	if !ok {
		i = len(ff.names)
		n := string(name)
		ff.idx[n] = i
		ff.names = append(ff.names, n)
		ff.kinds = append(ff.kinds, inferNull)
		ff.fixed = append(ff.fixed, len(ff.hinted) > 0 && ff.hinted[strings.ToLower(n)])
	}
	for len(ff.at) <= k {
		ff.at = append(ff.at, -1)
	}
	ff.at[k] = i
	return i
}

// widen widens field i by kind k.
func (ff *fileFields) widen(i int, k inferKind) {
	w := widen(ff.kinds[i], k)
	ff.kinds[i] = w
	if w == inferText {
		ff.fixed[i] = true
	}
}

// mergeInto observes the file's fields in fs, in the order first seen.
func (ff *fileFields) mergeInto(fs *fieldSet) {
	for i, n := range ff.names {
		fs.observe([]byte(n), ff.kinds[i])
	}
}

// hintNames are the lower-cased names o.SchemaHints gives types to (nil
// when it gives none or does not parse: applyHints reports that).
func hintNames(o Options) map[string]bool {
	if strings.TrimSpace(o.SchemaHints) == "" {
		return nil
	}
	cols, err := parseColumns(o.SchemaHints)
	if err != nil {
		return nil
	}
	out := make(map[string]bool, len(cols))
	for _, c := range cols {
		out[strings.ToLower(c.Name)] = true
	}
	return out
}

// observeSample observes the sample of files (json or csv) into fs, as
// reading them one after the other with a byte budget of sampleBytes
// would: the files that fit the budget whole by their listed sizes are
// observed in parallel; from the first one that did not read as its
// listed size (it grew, shrank or vanished) on, and for the file the
// budget cuts, one at a time.
func observeSample(files []FileInfo, o Options, sampleBytes int64, fs *fieldSet) error {
	hinted := hintNames(o)
	observe := func(data []byte) *fileFields {
		ff := newFileFields(hinted)
		if o.Format == "json" {
			inferJSONFile(data, !o.InferColumnTypes, ff)
		} else {
			inferCSVFile(data, o, ff)
		}
		return ff
	}
	// whole: files[:whole] fit the budget by their listed sizes.
	whole := 0
	for left := sampleBytes; whole < len(files) && files[whole].Size >= 0 && files[whole].Size < left; whole++ {
		left -= files[whole].Size
	}
	type result struct {
		ff   *fileFields
		read int64
		err  error
	}
	results := make([]result, whole)
	var next sync.Mutex
	k := 0
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), whole)
	left := make([]int64, whole) // each file's budget, as the one-pass read has it
	for i, b := 0, sampleBytes; i < whole; i++ {
		left[i] = b
		b -= files[i].Size
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				i := k
				k++
				next.Unlock()
				if i >= whole {
					return
				}
				data, done, err := readSample(files[i].Path, left[i])
				if err != nil {
					results[i].err = err
					continue
				}
				results[i] = result{ff: observe(data), read: int64(len(data))}
				done()
			}
		}()
	}
	wg.Wait()
	budget := sampleBytes
	i := 0
	for ; i < whole; i++ {
		r := results[i]
		if r.err != nil {
			return r.err
		}
		if r.read != files[i].Size {
			break // not as listed: the rest as one pass reads them
		}
		r.ff.mergeInto(fs)
		budget -= r.read
	}
	for ; i < len(files) && budget > 0; i++ {
		data, done, err := readSample(files[i].Path, budget)
		if err != nil {
			return err
		}
		budget -= int64(len(data))
		observe(data).mergeInto(fs)
		done()
	}
	return nil
}
