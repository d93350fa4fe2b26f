package catalog

// EffectiveACL is the schema's ACL, with PostgreSQL 15's initdb ACLs for
// the schemas initdb makes when none was stored: public's owner
// pg_database_owner holds USAGE and CREATE and PUBLIC USAGE only (15
// took CREATE from PUBLIC); pg_catalog and information_schema are usable
// by PUBLIC. nspacl shows these too, as PostgreSQL 15 does.
func (s *Schema) EffectiveACL() ACL {
	if s.ACL != nil {
		return s.ACL
	}
	switch s.OID {
	case PublicOID, PGCatalogOID, InformationSchemaOID:
		return ACL{
			{Grantee: s.Owner, Grantor: s.Owner, Privs: PrivUsage | PrivCreate},
			{Grantee: 0, Grantor: s.Owner, Privs: PrivUsage},
		}
	}
	return DefaultACL(ObjSchema, s.Owner)
}
