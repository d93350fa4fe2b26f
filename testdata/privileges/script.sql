-- What weir shows of privileges, statement by statement as PostgreSQL 15
-- shows it: GRANT and REVOKE (with and without grant options, to PUBLIC,
-- to roles used as groups, by grantors chosen as PostgreSQL chooses
-- them), SET ROLE, column privileges, has_*_privilege, pg_has_role,
-- relacl, attacl, nspacl, datacl, aclexplode, acldefault and
-- information_schema's privilege views. Each statement runs as the role
-- its "-- as" line names (weir is the superuser). Run by
-- engine/privilege_script_test.go on PostgreSQL 15 and on weir.

-- Roles: three users, a group, a user that does not inherit its groups.
-- as weir
CREATE ROLE pv_alice LOGIN;
-- as weir
CREATE ROLE pv_bob LOGIN;
-- as weir
CREATE ROLE pv_carol LOGIN;
-- as weir
CREATE ROLE pv_team;
-- as weir
CREATE ROLE pv_dave LOGIN IN ROLE pv_team;
-- as weir
GRANT pv_team TO pv_carol;

-- Objects, owned by the superuser.
-- as weir
CREATE TABLE pv_t (a int, b int, c text);
-- as weir
CREATE TABLE pv_u (x int);
-- as weir
CREATE TABLE "PV Mixed" (id int);
-- as weir
CREATE SCHEMA pv_s;
-- as weir
CREATE TABLE pv_s.inner_t (k int);

-- A new relation has the owner's default: relacl NULL, everything for
-- the owner, nothing for anyone else.
-- as weir
SELECT relname, relacl FROM pg_class WHERE relname IN ('pv_t', 'pv_u') ORDER BY relname;
-- as weir
SELECT acldefault('r', 'weir'::regrole), acldefault('c', 'weir'::regrole), acldefault('n', 'weir'::regrole);
-- as weir
SELECT acldefault('d', 'weir'::regrole), acldefault('f', 'weir'::regrole), acldefault('S', 'weir'::regrole);
-- as weir
SELECT has_table_privilege('pv_alice', 'pv_t', 'SELECT'), has_table_privilege('weir', 'pv_t', 'select,insert');
-- as pv_alice
SELECT has_table_privilege('pv_t', 'select'), has_table_privilege(current_user, 'pv_t', 'INSERT');
-- as pv_alice
SELECT has_any_column_privilege('pv_t', 'select'), has_column_privilege('pv_t', 'a', 'select');

-- Schemas and the database: initdb's ACLs, NULL for a new schema.
-- as weir
SELECT nspname, nspacl FROM pg_namespace WHERE nspname IN ('public', 'pv_s') ORDER BY nspname;
-- as weir
SELECT datname, datacl FROM pg_database WHERE datname = current_database();
-- as pv_alice
SELECT has_schema_privilege('public', 'USAGE'), has_schema_privilege('public', 'CREATE'), has_schema_privilege('pv_s', 'usage');
-- as pv_alice
SELECT has_schema_privilege('pv_alice', 'pg_catalog', 'usage'), has_schema_privilege('weir', 'pv_s', 'create with grant option');
-- as pv_alice
SELECT has_database_privilege(current_database(), 'connect'), has_database_privilege(current_database(), 'temp'), has_database_privilege(current_database(), 'create');
-- as pv_alice
SELECT has_database_privilege('pv_alice', current_database(), 'CONNECT WITH GRANT OPTION'), has_database_privilege('weir', current_database(), 'create');
-- as pv_alice
SELECT has_function_privilege('lower(text)', 'execute'), has_function_privilege('pv_bob', 'pg_catalog.upper(text)', 'EXECUTE');

-- Granting: SELECT with grant option to alice, INSERT to bob.
-- as weir
GRANT SELECT ON pv_t TO pv_alice WITH GRANT OPTION;
-- as weir
GRANT INSERT ON TABLE pv_t TO pv_bob;
-- as weir
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
-- as weir
SELECT has_table_privilege('pv_alice', 'pv_t', 'select'), has_table_privilege('pv_alice', 'pv_t', 'select with grant option'), has_table_privilege('pv_bob', 'pv_t', 'insert with grant option');
-- as pv_bob
SELECT has_table_privilege('pv_t', 'SELECT'), has_table_privilege('pv_t', 'INSERT'), has_table_privilege('pv_t', 'select, insert');

-- alice passes SELECT on; bob cannot pass INSERT on (no grant option).
-- as pv_alice
GRANT SELECT ON pv_t TO pv_carol;
-- as pv_bob
GRANT INSERT ON pv_t TO pv_carol;
-- as pv_bob
GRANT SELECT ON pv_t TO pv_carol;
-- as pv_carol
GRANT SELECT ON pv_u TO pv_bob;
-- as pv_alice
GRANT SELECT, INSERT ON pv_t TO pv_dave;
-- as pv_alice
GRANT ALL ON pv_t TO pv_dave;
-- as weir
SELECT relacl FROM pg_class WHERE relname = 'pv_t';

-- aclexplode over the stored ACL.
-- as weir
SELECT grantor::regrole, coalesce(nullif(grantee, 0)::regrole::text, 'PUBLIC'), privilege_type, is_grantable FROM aclexplode((SELECT relacl FROM pg_class WHERE relname = 'pv_t')) ORDER BY 2, 3, 1;

-- Groups: privileges granted to pv_team reach its members that inherit.
-- as weir
GRANT UPDATE, DELETE ON pv_u TO pv_team;
-- as pv_dave
SELECT has_table_privilege('pv_u', 'update'), has_table_privilege('pv_u', 'delete'), has_table_privilege('pv_u', 'select');
-- as pv_carol
SELECT has_table_privilege('pv_u', 'UPDATE'), has_table_privilege('pv_carol', 'pv_u', 'delete'), has_table_privilege('pv_alice', 'pv_u', 'update');
-- as weir
SELECT pg_has_role('pv_dave', 'pv_team', 'member'), pg_has_role('pv_dave', 'pv_team', 'usage'), pg_has_role('pv_alice', 'pv_team', 'usage');
-- as pv_dave
SET ROLE pv_team;
-- as pv_dave
SELECT current_user, session_user, has_table_privilege('pv_u', 'update'), has_table_privilege('pv_t', 'select');
-- as pv_dave
RESET ROLE;
-- as pv_dave
SELECT current_user, has_table_privilege('pv_t', 'select'), has_table_privilege('pv_t', 'insert');
-- as pv_alice
SET ROLE pv_team;

-- PUBLIC: everyone, even roles created later.
-- as weir
GRANT SELECT ON pv_u TO PUBLIC;
-- as weir
CREATE ROLE pv_late LOGIN;
-- as weir
SELECT has_table_privilege('pv_late', 'pv_u', 'select'), has_table_privilege('public', 'pv_u', 'select'), has_table_privilege('public', 'pv_u', 'update');
-- as weir
SELECT relacl FROM pg_class WHERE relname = 'pv_u';
-- as weir
GRANT SELECT ON pv_u TO PUBLIC WITH GRANT OPTION;

-- Column privileges: attacl, has_column_privilege, has_any_column_privilege.
-- as weir
GRANT SELECT (a, b), UPDATE (c) ON pv_t TO pv_bob;
-- as weir
GRANT INSERT (a) ON pv_t TO pv_late WITH GRANT OPTION;
-- as weir
SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'pv_t'::regclass AND attnum > 0 ORDER BY attnum;
-- as pv_bob
SELECT has_column_privilege('pv_t', 'a', 'select'), has_column_privilege('pv_t', 'c', 'select'), has_column_privilege('pv_t', 'c', 'update');
-- as pv_bob
SELECT has_column_privilege('pv_t', 2::int2, 'SELECT'), has_column_privilege('pv_t', 3::int2, 'select'), has_column_privilege('pv_t', 9::int2, 'select');
-- as pv_bob
SELECT has_any_column_privilege('pv_t', 'select'), has_any_column_privilege('pv_t', 'update'), has_any_column_privilege('pv_t', 'references');
-- as pv_bob
SELECT has_table_privilege('pv_t', 'select'), has_table_privilege('pv_t', 'update');
-- as pv_late
SELECT has_column_privilege('pv_t', 'a', 'insert with grant option'), has_column_privilege('pv_late', 'pv_t', 'b', 'insert');
-- as pv_late
GRANT INSERT (a) ON pv_t TO pv_carol;
-- as pv_alice
SELECT has_column_privilege('pv_t', 'c', 'select'), has_column_privilege('pv_alice', 'pv_t', 'c', 'select with grant option');
-- as weir
SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'pv_t'::regclass AND attacl IS NOT NULL ORDER BY attnum;

-- information_schema's views of the same grants.
-- as weir
SELECT grantor, grantee, table_name, privilege_type, is_grantable, with_hierarchy FROM information_schema.table_privileges WHERE table_name = 'pv_t' ORDER BY grantee, privilege_type, grantor;
-- as pv_bob
SELECT grantor, grantee, privilege_type, is_grantable FROM information_schema.table_privileges WHERE table_name IN ('pv_t', 'pv_u') ORDER BY table_name, grantee, privilege_type, grantor;
-- as pv_bob
SELECT grantor, grantee, table_name, privilege_type FROM information_schema.role_table_grants WHERE table_name IN ('pv_t', 'pv_u') ORDER BY table_name, grantee, privilege_type;
-- as weir
SELECT grantor, grantee, column_name, privilege_type, is_grantable FROM information_schema.column_privileges WHERE table_name = 'pv_t' AND grantee LIKE 'pv%' ORDER BY column_name, grantee, privilege_type, grantor;
-- as pv_late
SELECT grantor, grantee, column_name, privilege_type, is_grantable FROM information_schema.role_column_grants WHERE table_name = 'pv_t' ORDER BY column_name, grantee, privilege_type;
-- as pv_carol
SELECT role_name FROM information_schema.enabled_roles WHERE role_name LIKE 'pv%' ORDER BY 1;

-- information_schema shows a role only the tables, columns and schemas
-- it may do something with.
-- as pv_bob
SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_name LIKE 'pv%' OR table_name = 'inner_t' ORDER BY 2;
-- as pv_bob
SELECT table_name, column_name FROM information_schema.columns WHERE table_name LIKE 'pv%' ORDER BY 1, 2;
-- as pv_dave
SELECT table_name, column_name FROM information_schema.columns WHERE table_name LIKE 'pv%' ORDER BY 1, 2;
-- as pv_alice
SELECT schema_name, schema_owner FROM information_schema.schemata WHERE schema_name IN ('public', 'pv_s') ORDER BY 1;
-- as weir
SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('public', 'pv_s') ORDER BY 1;
-- as pv_alice
SELECT count(*) FROM information_schema.tables WHERE table_schema = 'pg_catalog' AND table_name IN ('pg_class', 'pg_authid', 'pg_namespace');

-- as pv_alice
SELECT DISTINCT grantee, privilege_type, is_grantable FROM information_schema.routine_privileges WHERE routine_name IN ('lower', 'count', 'now') ORDER BY 1;
-- as pv_alice
SELECT count(*) FROM information_schema.role_routine_grants WHERE routine_name = 'lower';
-- as pv_alice
SELECT count(*) FROM information_schema.role_usage_grants;

-- Revoking: grant options, CASCADE, the dependent grants.
-- as weir
REVOKE GRANT OPTION FOR SELECT ON pv_t FROM pv_alice;
-- as weir
REVOKE GRANT OPTION FOR SELECT ON pv_t FROM pv_alice CASCADE;
-- as weir
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
-- as pv_alice
SELECT has_table_privilege('pv_t', 'select'), has_table_privilege('pv_t', 'select with grant option');
-- as pv_carol
SELECT has_table_privilege('pv_t', 'select');
-- as pv_alice
GRANT SELECT ON pv_t TO pv_carol;
-- as weir
REVOKE INSERT ON pv_t FROM pv_bob;
-- as weir
REVOKE ALL ON pv_t FROM pv_bob;
-- as weir
SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'pv_t'::regclass AND attacl IS NOT NULL ORDER BY attnum;
-- as pv_bob
SELECT has_any_column_privilege('pv_t', 'select'), has_table_privilege('pv_t', 'insert');
-- as weir
REVOKE SELECT ON pv_u FROM PUBLIC;
-- as pv_late
SELECT has_table_privilege('pv_u', 'select');
-- as weir
REVOKE UPDATE ON pv_u FROM pv_team;
-- as pv_dave
SELECT has_table_privilege('pv_u', 'update'), has_table_privilege('pv_u', 'delete');

-- The owner may revoke its own privileges; it keeps its grant options.
-- as weir
REVOKE SELECT ON pv_u FROM weir;
-- as weir
SELECT relacl FROM pg_class WHERE relname = 'pv_u';
-- as weir
SELECT has_table_privilege('pv_u', 'select'), has_table_privilege('pv_alice', 'pv_u', 'select');

-- A table no role may touch but its owner, and an empty ACL.
-- as weir
REVOKE ALL ON "PV Mixed" FROM weir;
-- as weir
SELECT relacl FROM pg_class WHERE relname = 'PV Mixed';
-- as weir
SELECT has_table_privilege('pv_alice', '"PV Mixed"', 'select'), has_table_privilege('pv_alice', 'public."PV Mixed"', 'select');
-- as weir
GRANT SELECT ON ALL TABLES IN SCHEMA pv_s TO pv_carol;
-- as pv_carol
SELECT has_table_privilege('pv_s.inner_t', 'select'), has_table_privilege('pv_carol', 'pv_s.inner_t', 'insert');

-- The search path leaves out schemas the current user may not use.
-- as pv_carol
SET search_path = pv_s, public;
-- as pv_carol
SELECT current_schemas(false), current_schema();
-- as pv_carol
SELECT has_table_privilege('inner_t', 'select');
-- as pv_carol
SELECT has_table_privilege('pv_t', 'select');
-- as pv_carol
SHOW search_path;
-- as weir
SET search_path = pv_s, public;
-- as weir
SELECT current_schemas(false), has_table_privilege('inner_t', 'select');
-- as weir
RESET search_path;

-- Bad input: PostgreSQL's SQLSTATEs and messages.
-- as pv_alice
SELECT has_table_privilege('pv_t', 'foo');
-- as pv_alice
SELECT has_table_privilege('pv_t', 'select, bogus');
-- as pv_alice
SELECT has_table_privilege('pv_nosuch', 'select');
-- as pv_alice
SELECT has_table_privilege('pv_nosuch_schema.pv_t', 'select');
-- as pv_alice
SELECT has_table_privilege('pv_nosuch_role', 'pv_t', 'select');
-- as pv_alice
SELECT has_table_privilege(4000000000::oid, 'select') IS NULL;
-- as pv_alice
SELECT has_column_privilege('pv_t', 'nosuch', 'select');
-- as pv_alice
SELECT has_column_privilege('pv_t', 'a', 'delete');
-- as pv_alice
SELECT has_schema_privilege('pv_nosuch', 'usage');
-- as pv_alice
SELECT has_schema_privilege('public', 'select');
-- as pv_alice
SELECT has_database_privilege('pv_nosuch_db', 'connect');
-- as pv_alice
SELECT has_function_privilege('pv_nosuch(int)', 'execute');
-- as pv_alice
SELECT has_sequence_privilege('pv_t', 'usage');
-- as pv_alice
SELECT pg_has_role('pv_nosuch_role', 'member');
-- as pv_alice
SELECT pg_has_role('pv_team', 'bogus');
-- as weir
GRANT SELECT ON pv_t TO pv_nosuch_role;
-- as weir
GRANT SELECT (nosuch) ON pv_t TO pv_bob;
-- as weir
GRANT SELECT ON pv_t TO PUBLIC WITH GRANT OPTION;
-- as pv_dave
GRANT SELECT ON pv_t TO pv_alice;

-- The predefined roles that read or write everything.
-- as weir
CREATE ROLE pv_reader LOGIN IN ROLE pg_read_all_data;
-- as weir
CREATE ROLE pv_writer LOGIN IN ROLE pg_write_all_data;
-- as pv_reader
SELECT has_table_privilege('"PV Mixed"', 'select'), has_table_privilege('pv_t', 'insert'), has_column_privilege('pv_t', 'c', 'select'), has_any_column_privilege('pv_u', 'select');
-- as pv_reader
SELECT has_table_privilege('pv_t', 'select with grant option'), has_schema_privilege('pv_s', 'usage');
-- as pv_writer
SELECT has_table_privilege('pv_t', 'insert'), has_table_privilege('pv_t', 'update'), has_table_privilege('pv_t', 'delete'), has_table_privilege('pv_t', 'truncate'), has_table_privilege('pv_t', 'select');
-- as weir
SELECT count(*) FROM information_schema.table_privileges WHERE grantee = 'pv_reader';

-- Superusers hold everything.
-- as weir
CREATE ROLE pv_root SUPERUSER;
-- as weir
SELECT has_table_privilege('pv_root', '"PV Mixed"', 'select, insert'), has_column_privilege('pv_root', 'pv_t', 'c', 'update with grant option'), has_schema_privilege('pv_root', 'pv_s', 'create');
-- as weir
SELECT has_database_privilege('pv_root', current_database(), 'create'), pg_has_role('pv_root', 'pv_team', 'member with admin option');
