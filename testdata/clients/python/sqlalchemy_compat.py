"""SQLAlchemy 1.4 + psycopg2 against weir: reflection and a query.

Usage: /usr/bin/python3 sqlalchemy_compat.py HOST PORT USER DBNAME
Prints "<check> ok" or "FAIL <check>: ..." per check; exit 1 on any failure.
"""
import sys
import traceback

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



def setup():
    with engine.begin() as c:
        c.execute(text("CREATE TABLE sa_items (id bigint PRIMARY KEY, name text NOT NULL, "
                       "price numeric(10,2), created timestamptz, doc jsonb)"))
        c.execute(text("CREATE VIEW sa_view AS SELECT id, name FROM sa_items"))
        c.execute(text("INSERT INTO sa_items VALUES (1, 'a', 1.50, '2024-01-02 03:04:05+00', '{\"x\": 1}'), "
                       "(2, 'b', 2.25, NULL, NULL)"))


def table_names():
    # Other clients' tables may share the database: look at ours only.
    names = sorted(n for n in inspect(engine).get_table_names() if n.startswith("sa_"))
    assert names == ["sa_items"], names


def columns():
    cols = inspect(engine).get_columns("sa_items")
    got = [(c["name"], str(c["type"]), c["nullable"]) for c in cols]
    want = [("id", "BIGINT", False), ("name", "TEXT", False), ("price", "NUMERIC(10, 2)", True),
            ("created", "TIMESTAMP", True), ("doc", "JSONB", True)]
    assert got == want, got
    assert cols[3]["type"].timezone is True, "created must reflect as TIMESTAMP WITH TIME ZONE"


def pk():
    got = inspect(engine).get_pk_constraint("sa_items")
    assert got["constrained_columns"] == ["id"], got
    assert got["name"] == "sa_items_pkey", got


def views():
    got = sorted(n for n in inspect(engine).get_view_names() if n.startswith("sa_"))
    assert got == ["sa_view"], got


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


check("setup", setup)
check("get_table_names", table_names)
check("get_columns", columns)
check("get_pk_constraint", pk)
check("get_view_names", views)
check("query", query)
sys.exit(1 if failures else 0)
