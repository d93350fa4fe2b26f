package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/state"
)

// errDamaged makes `weir verify` exit with status 1 after its report.
var errDamaged = errors.New("the data directory is damaged")

// verify is `weir verify --data DIR`: it checks a stopped server's data
// directory offline, opening it read-only, and reports what it checked and
// every damaged file and table. Exit status 0: clean; 1: damaged; 2: it
// could not run (bad flags, no such directory, the server holds it).
func verify(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	data := fs.String("data", "./weir-data", "data directory to check (opened read-only; stop the server first)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(*data); err != nil {
		return fmt.Errorf("data directory %s: %w", *data, err)
	}
	if _, err := os.Stat(filepath.Join(*data, "MANIFEST")); err != nil {
		return fmt.Errorf("%s is not a weir data directory (it has no MANIFEST)", *data)
	}
	fmt.Fprintf(out, "verifying %s (read-only)\n", *data)
	st, logDamage, closeStore, err := state.OpenForVerify(*data)
	if err != nil {
		// Badger could not even open it: check the table files one by one,
		// so that the report still says which are damaged.
		fmt.Fprintf(out, "DAMAGED: the store does not open: %v\n", err)
		damage, lerr := state.CheckTableFiles(*data, nil)
		if lerr != nil {
			return lerr
		}
		for _, d := range damage {
			fmt.Fprintf(out, "DAMAGED: table file %s: %s\n", d.File, d.Reason)
		}
		return errDamaged
	}
	defer closeStore()
	for _, d := range logDamage {
		fmt.Fprintf(out, "DAMAGED: %s: %s\n", d.File, d.Reason)
	}

	names := map[uint32]string{}
	var oids []uint32
	cat, cerr := catalog.Open(st)
	if cerr != nil {
		fmt.Fprintf(out, "DAMAGED: the catalog does not load: %v\n", cerr)
	} else {
		for _, r := range cat.Relations() {
			names[r.OID] = r.Schema + "." + r.Name
			oids = append(oids, r.OID)
		}
	}
	r := st.Verify(oids)
	describe := func(oid uint32) string {
		base := oid &^ (1 << 31)
		n, ok := names[base]
		if !ok {
			n = fmt.Sprintf("OID %d", base)
			if oid == 0 {
				return "catalog/metadata"
			}
		}
		if base != oid {
			return "state of streaming table " + n
		}
		return "table " + n
	}

	fmt.Fprintf(out, "checked %d table files block by block, %d keys, %d values (%d value-log files), %d chunks with %d rows\n",
		r.TableFiles, r.Keys, r.Values, r.ValueLogFiles, r.Chunks, r.Rows)
	rels := make([]uint32, 0, len(r.Relations))
	for oid := range r.Relations {
		rels = append(rels, oid)
	}
	sort.Slice(rels, func(i, j int) bool { return rels[i] < rels[j] })
	for _, oid := range rels {
		c := r.Relations[oid]
		status := "ok"
		if c.Damaged > 0 {
			status = "DAMAGED"
		}
		fmt.Fprintf(out, "  %-8s %s: %d chunks, %d rows\n", status, describe(oid), c.Chunks, c.Rows)
	}
	for _, d := range r.DamagedFiles {
		fmt.Fprintf(out, "DAMAGED: table file %s: %s\n", d.File, d.Reason)
	}
	for _, d := range r.Damage {
		if d.Key == nil {
			fmt.Fprintf(out, "DAMAGED: file %s: %s\n", d.File, d.Reason)
			continue
		}
		where := fmt.Sprintf("key %x", d.Key)
		if d.File != "" {
			where = "file " + d.File + ", " + where
		}
		fmt.Fprintf(out, "DAMAGED: %s: %s (%s)\n", describe(d.Rel), d.Reason, where)
	}
	if cerr != nil || !r.Clean() || len(logDamage) > 0 {
		return errDamaged
	}
	fmt.Fprintln(out, "no damage found")
	return nil
}
