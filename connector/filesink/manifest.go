package filesink

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ManifestDir is the folder, under the sink's, of the epochs' manifests.
const ManifestDir = "_weir_manifest"

// Manifest is one epoch's commit record (_weir_manifest/<epoch>.json).
// Paths are relative to the sink's folder, with forward slashes.
type Manifest struct {
	Epoch  int64  `json:"epoch"`
	Format string `json:"format"`
	// Committed is when the manifest was written.
	Committed time.Time `json:"committed"`
	// Added are the data files the epoch wrote (its rows, and the files
	// compaction made of earlier ones).
	Added []DataFile `json:"added"`
	// Removed are earlier files whose rows an added compacted file holds:
	// a reader drops them from the set.
	// The files stay on disk for Options.ReplacedRetention after the
	// epoch commits, for readers still reading them.
	Removed []string `json:"removed,omitempty"`
}

// DataFile is one data file of a manifest.
type DataFile struct {
	Path  string `json:"path"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
	// Partition is the file's folder ("" unpartitioned), e.g.
	// "region=eu".
	Partition string `json:"partition,omitempty"`
	// Compacted is set on a file made by merging earlier files.
	Compacted bool `json:"compacted,omitempty"`
	// FirstEpoch and LastEpoch are the epochs whose rows the file holds
	// (one, but for a compacted file). Within a partition the live files'
	// ranges never overlap: compaction merges only files next to each
	// other in epoch order.
	FirstEpoch int64 `json:"first_epoch"`
	LastEpoch  int64 `json:"last_epoch"`
}

// manifestName is the file name of epoch's manifest: zero-padded, so that
// names sort in epoch order.
func manifestName(epoch int64) string { return fmt.Sprintf("%020d.json", epoch) }

// ReadManifests reads every committed manifest of the sink folder dir, in
// epoch order. A reader (or a test) that follows them sees each row once:
// LiveFiles.
func ReadManifests(dir string) ([]Manifest, error) {
	ents, err := os.ReadDir(filepath.Join(dir, ManifestDir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Manifest
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		if _, err := strconv.ParseInt(strings.TrimSuffix(name, ".json"), 10, 64); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, ManifestDir, name))
		if err != nil {
			return nil, err
		}
		var m Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("manifest %s is damaged: %v", name, err)
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Epoch < out[j].Epoch })
	return out, nil
}

// LiveFiles is the set of data files the manifests make up: every file
// added and not removed by a later epoch, in epoch order (FirstEpoch, and
// within an epoch the order the epoch wrote them). Reading them in this
// order reads an update-mode table's changes in the order they happened
// (within a partition; across partitions, _commit_version orders them).
func LiveFiles(ms []Manifest) []DataFile {
	var order []DataFile
	gone := map[string]bool{}
	for _, m := range ms {
		order = append(order, m.Added...)
		for _, r := range m.Removed {
			gone[r] = true
		}
	}
	out := order[:0]
	for _, f := range order {
		if !gone[f.Path] {
			out = append(out, f)
		}
	}
	sortByEpoch(out)
	return out
}

// sortByEpoch orders files by the first epoch they hold, keeping the
// order of files of one epoch.
func sortByEpoch(fs []DataFile) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].FirstEpoch < fs[j].FirstEpoch })
}

// writeManifest makes m durable: a temporary file, synced, renamed into
// place, and the folder synced. The rename is the epoch's commit.
func writeManifest(dir string, m *Manifest) error {
	mdir := filepath.Join(dir, ManifestDir)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	final := filepath.Join(mdir, manifestName(m.Epoch))
	tmp := filepath.Join(mdir, tempPrefix+manifestName(m.Epoch))
	if err := writeFileSync(tmp, data); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return syncDir(mdir)
}

func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
