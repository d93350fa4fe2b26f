package catalog

// FilesSource is a files source's definition (connector = 'files', or a
// read_files(...) call in a streaming table's query): its options as given
// and its schema. The schema is inferred once, when the source or the
// streaming table is created, and kept here, so that a restart binds the
// same columns even when the files that arrived since look different.
type FilesSource struct {
	// Options are the options as written (Databricks' names, values as
	// text), path included; connector/files' ParseOptions reads them again
	// whenever the source opens. The path option holds Path.
	Options []FilesOption
	// Path is the path the options name, resolved under the server's
	// files roots: absolute, cleaned, symbolic links resolved.
	Path   string
	Format string
	// Columns are the data columns; Rescued names the rescued-data column
	// (jsonb), "" when there is none. Every row also has the hidden
	// _metadata column.
	Columns []Column
	Rescued string `json:",omitempty"`
	// Version is the schema's version: 1 when inferred or given.
	Version int
	// Input is, in a streaming table, the position of its read_files call
	// among the query's (0-based, in order of appearance); 0 for a named
	// source.
	Input int `json:",omitempty"`
}

// FilesOption is one option of a files source.
type FilesOption struct{ Name, Value string }

func (f *FilesSource) clone() *FilesSource {
	if f == nil {
		return nil
	}
	c := *f
	c.Options = append([]FilesOption(nil), f.Options...)
	c.Columns = append([]Column(nil), f.Columns...)
	return &c
}

func cloneFilesSources(fs []FilesSource) []FilesSource {
	out := make([]FilesSource, len(fs))
	for i := range fs {
		out[i] = *fs[i].clone()
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Clone is a copy of f that shares nothing with it.
func (f *FilesSource) Clone() *FilesSource { return f.clone() }
