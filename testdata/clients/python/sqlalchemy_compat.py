"""SQLAlchemy 1.4 + psycopg2 against weir and PostgreSQL 15: every inspector
method, and a query.

Usage: /usr/bin/python3 sqlalchemy_compat.py HOST PORT USER DBNAME

Creates the same objects on whichever server it is given and prints what
each inspector method returns, one line per call ("<call>: <result>"), so
that cmd/weir/clients_test.go can compare the output for weir with the
output for PostgreSQL. A call that raises prints "ERROR <call>: ...".
Checks with a fixed answer print "<check> ok" or "FAIL <check>: ...".
Exit status 1 when a check failed.
"""
import sys

import sqlalchemy
from sqlalchemy import create_engine, inspect, text

host, port, user, db = sys.argv[1:5]
assert sqlalchemy.__version__.startswith("1.4"), sqlalchemy.__version__
engine = create_engine(f"postgresql+psycopg2://{user}@{host}:{port}/{db}")
failures = 0


def check(name, fn):
    global failures
    try:
        fn()
        print(f"{name} ok")
    except Exception as e:  # report and continue with the next check
        failures += 1
        msg = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"FAIL {name}: {msg[:400]}")


def show(value):
    """A deterministic text form: dicts by sorted key, types by their DDL."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {show(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, sqlalchemy.types.TypeEngine):
        return f"{value!r}"
    return repr(value)


def call(name, fn):
    """Print one inspector call's result; a fresh Inspector each time, so
    that no call is answered from another's cache."""
    try:
        print(f"{name}: {show(fn(inspect(engine)))}")
    except Exception as e:
        msg = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"ERROR {name}: {msg[:400]}")


def setup():
    with engine.begin() as c:
        c.execute(text("CREATE TABLE sa_items (id bigint PRIMARY KEY, name text NOT NULL, "
                       "price numeric(10,2) DEFAULT 0, created timestamptz, doc jsonb, code varchar(12), "
                       "flags int[], day date, ratio float8)"))
        c.execute(text("CREATE VIEW sa_view AS SELECT id, name FROM sa_items WHERE price > 1"))
        c.execute(text("CREATE SCHEMA sa_s"))
        c.execute(text("CREATE TABLE sa_s.sa_pair (a int, b text, c bigint NOT NULL, PRIMARY KEY (b, a))"))
        c.execute(text("CREATE TABLE sa_nokey (x int, y text)"))
        c.execute(text("INSERT INTO sa_items (id, name, price, created, doc) VALUES "
                       "(1, 'a', 1.50, '2024-01-02 03:04:05+00', '{\"x\": 1}'), (2, 'b', 2.25, NULL, NULL)"))


def query():
    import datetime
    import decimal
    with engine.connect() as c:
        rows = c.execute(text("SELECT id, name, price, created, doc FROM sa_items WHERE id >= :lo ORDER BY id"),
                         {"lo": 1}).fetchall()
        want = [(1, "a", decimal.Decimal("1.50"),
                 datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), {"x": 1}),
                (2, "b", decimal.Decimal("2.25"), None, None)]
        assert [tuple(r) for r in rows] == want, rows
        assert c.execute(text("SELECT count(*) FROM sa_view")).scalar() == 2


def ours(names):
    return sorted(n for n in names if n.startswith("sa_") or n == "public")


check("setup", setup)
call("get_schema_names", lambda i: ours(i.get_schema_names()))
call("default_schema_name", lambda i: i.default_schema_name)
call("get_table_names", lambda i: ours(i.get_table_names()))
call("get_table_names(sa_s)", lambda i: i.get_table_names(schema="sa_s"))
call("get_view_names", lambda i: ours(i.get_view_names()))
call("get_temp_table_names", lambda i: i.get_temp_table_names())
call("get_temp_view_names", lambda i: i.get_temp_view_names())
call("get_sequence_names", lambda i: i.get_sequence_names())
call("get_enums", lambda i: i.get_enums())
call("get_enums(all)", lambda i: i.get_enums(schema="*"))
for table, schema in (("sa_items", None), ("sa_view", None), ("sa_pair", "sa_s"), ("sa_nokey", None)):
    where = f"{schema}.{table}" if schema else table
    call(f"get_columns({where})", lambda i: i.get_columns(table, schema=schema))
    call(f"get_pk_constraint({where})", lambda i: i.get_pk_constraint(table, schema=schema))
    call(f"get_indexes({where})", lambda i: i.get_indexes(table, schema=schema))
    call(f"get_unique_constraints({where})", lambda i: i.get_unique_constraints(table, schema=schema))
    call(f"get_check_constraints({where})", lambda i: i.get_check_constraints(table, schema=schema))
    call(f"get_foreign_keys({where})", lambda i: i.get_foreign_keys(table, schema=schema))
    call(f"get_table_comment({where})", lambda i: i.get_table_comment(table, schema=schema))
    call(f"get_table_oid({where}) found", lambda i: i.get_table_oid(table, schema=schema) > 0)
call("get_view_definition(sa_view)", lambda i: i.get_view_definition("sa_view"))
call("has_table(sa_items)", lambda i: i.has_table("sa_items"))
call("has_table(sa_pair, sa_s)", lambda i: i.has_table("sa_pair", schema="sa_s"))
call("has_table(sa_missing)", lambda i: i.has_table("sa_missing"))
call("has_sequence(sa_seq)", lambda i: i.has_sequence("sa_seq"))
call("has_schema(sa_s)", lambda i: engine.dialect.has_schema(engine.connect(), "sa_s"))
def weir_catalog():
    """weir's own views (weir_catalog) reflect like any view. PostgreSQL has
    none: there the check passes without looking, as weir's does when right."""
    with engine.connect() as c:
        if "weir" not in c.execute(text("SELECT version()")).scalar():
            return
    i = inspect(engine)
    assert "streaming_progress" in i.get_view_names(schema="weir_catalog"), i.get_view_names(schema="weir_catalog")
    cols = [col["name"] for col in i.get_columns("streaming_progress", schema="weir_catalog")]
    assert cols[:2] == ["name", "status"] and "watermark" in cols, cols


check("query", query)
check("weir_catalog", weir_catalog)
sys.exit(1 if failures else 0)
