package pgcatalog

// addUserProcs adds the pg_proc rows of user-defined SQL functions
// (CREATE FUNCTION): prokind 'f', prolang sql, prosrc the AS text ("" for
// the RETURN form, whose body PostgreSQL keeps in prosqlbody), as
// PostgreSQL 15 stores them, so that psql's \df lists them.
func addUserProcs(rb *rowBuilder, s *Snapshot) {
	if s.Cat == nil {
		return
	}
	for _, f := range s.Cat.Functions() {
		args := make([]uint32, len(f.Args))
		var names []string
		named := false
		for i, a := range f.Args {
			args[i] = a.Type.OID
			names = append(names, a.Name)
			named = named || a.Name != ""
		}
		var argNames any
		if named {
			argNames = names
		}
		vol := f.Volatility
		if vol == 0 {
			vol = 'v'
		}
		rb.add(f.OID, f.Name, s.nspOID(f.Schema), f.Owner, langSQL,
			float32(100), float32(0), uint32(0), uint32(0), byte('f'), false, false, false, false,
			vol, byte('u'), int16(len(args)), int16(0), f.Ret.OID, vectorText(args),
			nil, nil, argNames, nil, nil, f.Src, nil, nil, nil, nil)
	}
}
