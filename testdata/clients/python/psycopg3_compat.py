"""psycopg 3 against weir and PostgreSQL 15: int2-binary parameters, binary
results, COPY, and type introspection (TypeInfo, CompositeInfo, EnumInfo,
RangeInfo) with the adapters it registers, arrays included.

Usage: /usr/bin/python3 psycopg3_compat.py CONNINFO
Prints "<check> ok" or "FAIL <check>: ..." per check, and "<call>: <result>"
for each introspection call, which cmd/weir/clients_test.go compares with
PostgreSQL's output. Exit 1 when a check failed.
"""
import datetime
import decimal
import sys
import traceback

import psycopg

failures = 0
conn = psycopg.connect(sys.argv[1], autocommit=True)


def check(name, fn):
    global failures
    try:
        fn()
        print(f"{name} ok")
    except Exception as e:
        failures += 1
        msg = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"FAIL {name}: {msg[:400]}")



def params():
    # A small Python int goes as int2 (OID 21) in binary, a str as unknown text.
    row = conn.execute("SELECT %s + 1 AS n, %s || '!' AS s, pg_typeof(%s)::text AS t", (41, "hi", 7)).fetchone()
    assert row == (42, "hi!", "smallint"), row


def binary():
    conn.execute("CREATE TABLE pg3_items (id int PRIMARY KEY, price numeric(10,2), created timestamptz, name text)")
    conn.execute("INSERT INTO pg3_items VALUES (1, 12.34, '2024-01-02 03:04:05.5+00', 'one')")
    cur = conn.cursor(binary=True)
    cur.execute("SELECT id, price, created, name, 9000000000::int8 FROM pg3_items WHERE id = %s", (1,))
    row = cur.fetchone()
    want = (1, decimal.Decimal("12.34"),
            datetime.datetime(2024, 1, 2, 3, 4, 5, 500000, tzinfo=datetime.timezone.utc), "one", 9000000000)
    assert row == want, row
    assert cur.pgresult.fformat(0) == 1, "results must be binary"


def copy_in():
    conn.execute("CREATE TABLE pg3_copy (id int, name text, amount numeric(10,2))")
    with conn.cursor() as cur:
        with cur.copy("COPY pg3_copy (id, name, amount) FROM STDIN") as cp:
            for i in range(1, 101):
                cp.write_row((i, f"row {i}", decimal.Decimal(i) / 4))
        got = conn.execute("SELECT count(*), sum(id), sum(amount), max(name) FROM pg3_copy").fetchone()
        assert got == (100, 5050, decimal.Decimal("1262.50"), "row 99"), got


def error_then_ok():
    try:
        conn.execute("SELECT * FROM pg3_missing")
        raise AssertionError("missing table did not fail")
    except psycopg.errors.UndefinedTable as e:
        assert e.sqlstate == "42P01"
    assert conn.execute("SELECT 1").fetchone() == (1,)


def call(name, fn):
    try:
        print(f"{name}: {fn()}")
    except Exception as e:
        msg = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"ERROR {name}: {msg[:400]}")


def info_text(info):
    if info is None:
        return "None"
    # OIDs of user objects differ between servers; builtin ones must not.
    def oid(o):
        return o if o < 16384 else "user"
    out = f"{type(info).__name__} name={info.name} oid={oid(info.oid)} array_oid={oid(info.array_oid)} " \
          f"regtype={info.regtype} delimiter={info.delimiter!r}"
    for attr in ("field_names", "field_types", "labels", "subtype_oid"):
        if hasattr(info, attr):
            out += f" {attr}={getattr(info, attr)!r}"
    return out


def introspection():
    from psycopg.types import TypeInfo
    from psycopg.types.composite import CompositeInfo
    from psycopg.types.enum import EnumInfo
    from psycopg.types.range import RangeInfo
    for name in ("int2", "int4", "int8", "text", "numeric", "bool", "timestamptz", "date", "jsonb", "uuid",
                 "bytea", "float8", "varchar", "int4[]", "_text", "text[]", "character varying", "oid",
                 "int2vector", "oidvector", "aclitem", "name", "regclass", "no_such_type"):
        call(f"TypeInfo.fetch({name})", lambda: info_text(TypeInfo.fetch(conn, name)))
    for cls in (CompositeInfo, EnumInfo, RangeInfo):
        call(f"{cls.__name__}.fetch(no_such_type)", lambda: info_text(cls.fetch(conn, "no_such_type")))
    call("CompositeInfo.fetch(pg3_items)", lambda: info_text(CompositeInfo.fetch(conn, "pg3_items")))
    # Register what TypeInfo found and use the adapters, arrays included,
    # in text and binary.
    for name in ("int4", "text", "numeric", "int2vector"):
        call(f"register({name})", lambda: TypeInfo.fetch(conn, name).register(conn))
    for binary in (False, True):
        cur = conn.cursor(binary=binary)
        call(f"arrays(binary={binary})", lambda: cur.execute(
            "SELECT %s::int4[], %s::text[], %s::numeric[], ARRAY[1,2]::int2[], '{a,NULL}'::text[], "
            "'1 2'::int2vector::int2[], '{}'::int8[], ARRAY['a','b']::varchar[], '{t,f}'::bool[]",
            ([1, None, 3], ["x", "y z"], [decimal.Decimal("1.5")])).fetchone())
        call(f"array param round trip(binary={binary})", lambda: cur.execute(
            "SELECT %s::int8[] = ARRAY[1,2,3]::int8[], array_length(%s::text[], 1)", ([1, 2, 3], ["a", "b"])).fetchone())


def server_cursors():
    # Named (server-side) cursors: DECLARE with a parameter, Describe of
    # the cursor's portal, FETCH FORWARD itersize, in text and binary, and
    # fetchmany / fetchall; the server streams the rows.
    for binary in (False, True):
        def run():
            with conn.transaction():
                with conn.cursor(name="pg3_named", binary=binary) as cur:
                    cur.itersize = 1000
                    cur.execute("SELECT g, md5(g::text) AS h FROM generate_series(1, %s) g", (5000,))
                    names = [d.name for d in cur.description]
                    first = cur.fetchmany(3)
                    n, total = len(first), sum(r[0] for r in first)
                    for row in cur:
                        n += 1
                        total += row[0]
                    return f"{names} first={first[0]} rows={n} sum={total}"
        call(f"server cursor(binary={binary})", run)


check("params", params)
check("binary", binary)
check("copy", copy_in)
check("error", error_then_ok)
introspection()
server_cursors()
conn.close()
sys.exit(1 if failures else 0)
