-- What privileges allow and refuse, and GRANT on schemas, the database
-- and ownership: the second half of the privilege script, which needs the
-- checks at bind time (SELECT, INSERT, UPDATE, DELETE, DROP), GRANT and
-- REVOKE on schemas and databases, ALTER … OWNER TO and NOINHERIT. Each
-- statement runs as the role its "-- as" line names (weir is the
-- superuser). Run by engine/privilege_script_test.go on PostgreSQL 15 and
-- on weir.

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
CREATE ROLE pv_lone LOGIN NOINHERIT IN ROLE pv_team;
-- as weir
CREATE TABLE pv_t (a int, b int, c text);
-- as weir
INSERT INTO pv_t VALUES (1, 10, 'one'), (2, 20, 'two');
-- as weir
CREATE TABLE pv_u (x int);
-- as weir
CREATE SCHEMA pv_s;
-- as weir
CREATE TABLE pv_s.inner_t (k int);

-- Reads and writes without privileges fail; with them they pass.
-- as pv_alice
SELECT * FROM pv_t;
-- as pv_alice
INSERT INTO pv_t VALUES (3, 30, 'three');
-- as weir
GRANT SELECT ON pv_t TO pv_alice WITH GRANT OPTION;
-- as pv_alice
SELECT a, b, c FROM pv_t ORDER BY a;
-- as pv_alice
INSERT INTO pv_t VALUES (3, 30, 'three');
-- as pv_alice
GRANT SELECT ON pv_t TO pv_bob;
-- as pv_bob
SELECT count(*) FROM pv_t;
-- as weir
REVOKE SELECT ON pv_t FROM pv_alice CASCADE;
-- as pv_bob
SELECT count(*) FROM pv_t;
-- as pv_alice
SELECT count(*) FROM pv_t;

-- Column privileges: only the granted columns may be read or written.
-- as weir
GRANT SELECT (a, b), INSERT (a) ON pv_t TO pv_carol;
-- as pv_carol
SELECT a, b FROM pv_t ORDER BY a;
-- as pv_carol
SELECT c FROM pv_t;
-- as pv_carol
SELECT * FROM pv_t;
-- as pv_carol
SELECT count(*) FROM pv_t;
-- as pv_carol
INSERT INTO pv_t (a) VALUES (4);
-- as pv_carol
INSERT INTO pv_t (a, b) VALUES (5, 50);
-- as pv_carol
SELECT a FROM pv_t WHERE c = 'one';

-- Groups, SET ROLE and NOINHERIT.
-- as weir
GRANT SELECT ON pv_u TO pv_team;
-- as pv_dave
SELECT count(*) FROM pv_u;
-- as pv_lone
SELECT count(*) FROM pv_u;
-- as pv_lone
SELECT has_table_privilege('pv_u', 'select'), pg_has_role('pv_team', 'member'), pg_has_role('pv_team', 'usage');
-- as pv_lone
SET ROLE pv_team;
-- as pv_lone
SELECT count(*) FROM pv_u;
-- as pv_lone
RESET ROLE;
-- as weir
SELECT rolname, rolinherit FROM pg_roles WHERE rolname IN ('pv_dave', 'pv_lone') ORDER BY 1;

-- PUBLIC.
-- as weir
GRANT SELECT, INSERT ON pv_u TO PUBLIC;
-- as pv_bob
INSERT INTO pv_u VALUES (1);
-- as pv_bob
SELECT count(*) FROM pv_u;
-- as weir
REVOKE INSERT ON pv_u FROM PUBLIC;
-- as pv_bob
INSERT INTO pv_u VALUES (2);

-- Schemas: USAGE to reach objects, CREATE to make them.
-- as weir
GRANT SELECT ON pv_s.inner_t TO pv_bob;
-- as pv_bob
SELECT count(*) FROM pv_s.inner_t;
-- as weir
GRANT USAGE ON SCHEMA pv_s TO pv_bob;
-- as pv_bob
SELECT count(*) FROM pv_s.inner_t;
-- as pv_bob
CREATE TABLE pv_s.bobs (x int);
-- as weir
GRANT CREATE ON SCHEMA pv_s TO pv_bob WITH GRANT OPTION;
-- as pv_bob
CREATE TABLE pv_s.bobs (x int);
-- as weir
SELECT nspname, nspacl FROM pg_namespace WHERE nspname = 'pv_s';
-- as pv_bob
SELECT has_schema_privilege('pv_s', 'usage'), has_schema_privilege('pv_s', 'create with grant option'), has_schema_privilege('pv_carol', 'pv_s', 'usage');
-- as weir
SELECT relname, pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'bobs';
-- as pv_bob
GRANT CREATE ON SCHEMA pv_s TO pv_carol;
-- as weir
REVOKE USAGE ON SCHEMA pv_s FROM pv_bob;
-- as weir
SELECT nspacl FROM pg_namespace WHERE nspname = 'pv_s';
-- as pv_carol
CREATE TABLE pv_carols (x int);
-- as weir
GRANT CREATE ON SCHEMA public TO pv_carol;
-- as pv_carol
CREATE TABLE pv_carols (x int);
-- as weir
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';

-- The database: CONNECT and TEMPORARY for PUBLIC by default.
-- as weir
REVOKE TEMPORARY ON DATABASE weir FROM PUBLIC;
-- as weir
SELECT datacl FROM pg_database WHERE datname = current_database();
-- as weir
GRANT CREATE ON DATABASE weir TO pv_alice;
-- as weir
SELECT datacl FROM pg_database WHERE datname = current_database();
-- as pv_alice
SELECT has_database_privilege(current_database(), 'create'), has_database_privilege(current_database(), 'temporary'), has_database_privilege('pv_bob', current_database(), 'connect');
-- as weir
GRANT ALL ON DATABASE weir TO PUBLIC;
-- as weir
SELECT datacl FROM pg_database WHERE datname = current_database();

-- Owners: DROP and ALTER only by the owner; ALTER … OWNER TO.
-- as pv_alice
DROP TABLE pv_u;
-- as weir
ALTER TABLE pv_u OWNER TO pv_alice;
-- as weir
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname = 'pv_u';
-- as pv_alice
SELECT has_table_privilege('pv_u', 'select with grant option, delete');
-- as pv_alice
GRANT DELETE ON pv_u TO pv_bob;
-- as weir
SELECT relacl FROM pg_class WHERE relname = 'pv_u';
-- as pv_bob
DROP TABLE pv_u;
-- as weir
ALTER SCHEMA pv_s OWNER TO pv_alice;
-- as weir
SELECT nspname, pg_get_userbyid(nspowner), nspacl FROM pg_namespace WHERE nspname = 'pv_s';
-- as pv_alice
DROP TABLE pv_u;

-- GRANT and REVOKE details: a column grant option covers that column
-- only; a REVOKE without grant options warns for every column, system
-- columns included; EXECUTE is invalid "for relation".
-- as weir
GRANT INSERT (a) ON pv_t TO pv_dave WITH GRANT OPTION;
-- as pv_dave
GRANT INSERT (b) ON pv_t TO pv_carol;
-- as weir
GRANT INSERT ON pv_t TO pv_bob;
-- as pv_bob
REVOKE INSERT ON pv_t FROM pv_bob;
-- as weir
GRANT EXECUTE ON pv_t TO pv_bob;

-- A role that holds privileges cannot be dropped.
-- as weir
CREATE ROLE pv_gone;
-- as weir
GRANT SELECT ON pv_t TO pv_gone;
-- as weir
DROP ROLE pv_gone;
-- as weir
REVOKE ALL ON pv_t FROM pv_gone;
-- as weir
DROP ROLE pv_gone;
