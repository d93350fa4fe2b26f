package catalog

import "github.com/weir-sql/weir/state"

// PostgreSQL 15's predefined roles, with its OIDs. They cannot log in,
// be altered, renamed or dropped, so they live in code rather than the
// store; only their memberships (pg_monitor's, and whatever is granted
// later) are stored, so that REVOKE of one of them lasts.
const (
	MonitorRoleOID             uint32 = 3373
	ReadAllSettingsRoleOID     uint32 = 3374
	ReadAllStatsRoleOID        uint32 = 3375
	StatScanTablesRoleOID      uint32 = 3377
	SignalBackendRoleOID       uint32 = 4200
	CheckpointRoleOID          uint32 = 4544
	ReadServerFilesRoleOID     uint32 = 4569
	WriteServerFilesRoleOID    uint32 = 4570
	ExecuteServerProgramRoleID uint32 = 4571
	ReadAllDataRoleOID         uint32 = 6181
	WriteAllDataRoleOID        uint32 = 6182
)

var predefinedRoles = []Role{
	{OID: MonitorRoleOID, Name: "pg_monitor"},
	{OID: ReadAllSettingsRoleOID, Name: "pg_read_all_settings"},
	{OID: ReadAllStatsRoleOID, Name: "pg_read_all_stats"},
	{OID: StatScanTablesRoleOID, Name: "pg_stat_scan_tables"},
	{OID: SignalBackendRoleOID, Name: "pg_signal_backend"},
	{OID: CheckpointRoleOID, Name: "pg_checkpoint"},
	{OID: ReadServerFilesRoleOID, Name: "pg_read_server_files"},
	{OID: WriteServerFilesRoleOID, Name: "pg_write_server_files"},
	{OID: ExecuteServerProgramRoleID, Name: "pg_execute_server_program"},
	{OID: DatabaseOwnerRoleOID, Name: DatabaseOwnerRole},
	{OID: ReadAllDataRoleOID, Name: "pg_read_all_data"},
	{OID: WriteAllDataRoleOID, Name: "pg_write_all_data"},
}

// Predefined reports whether r is one of PostgreSQL's predefined roles.
func (r *Role) Predefined() bool {
	return r.OID < FirstUserOID && r.OID != BootstrapRoleOID
}

// predefinedMemberships are initdb's grants: pg_monitor is a member of
// the three roles it bundles, granted by the bootstrap superuser.
var predefinedMemberships = []Membership{
	{Role: ReadAllSettingsRoleOID, Member: MonitorRoleOID, Grantor: BootstrapRoleOID},
	{Role: ReadAllStatsRoleOID, Member: MonitorRoleOID, Grantor: BootstrapRoleOID},
	{Role: StatScanTablesRoleOID, Member: MonitorRoleOID, Grantor: BootstrapRoleOID},
}

// keyPredefinedMembers marks a store in which predefinedMemberships were
// written; stores made before weir had memberships get them at Open.
const keyPredefinedMembers = state.PrefixCatalog + "predefined-members"

func (c *Catalog) addPredefinedRoles() {
	for i := range predefinedRoles {
		r := predefinedRoles[i]
		c.roles[r.Name] = &r
	}
}

// storePredefinedMemberships writes initdb's memberships once per store.
func (c *Catalog) storePredefinedMemberships() error {
	tx := c.st.Begin(false)
	_, err := tx.Get([]byte(keyPredefinedMembers))
	tx.Discard()
	if err != state.ErrNotFound {
		return err
	}
	w := c.st.Begin(true)
	defer w.Discard()
	for i := range predefinedMemberships {
		m := predefinedMemberships[i]
		if err := putJSON(w, memberKey(m.Role, m.Member), &m); err != nil {
			return err
		}
	}
	if err := w.Set([]byte(keyPredefinedMembers), []byte{1}); err != nil {
		return err
	}
	return w.Commit()
}
