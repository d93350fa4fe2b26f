"""psycopg 3 against weir: int2-binary parameters, binary results, COPY.

Usage: /usr/bin/python3 psycopg3_compat.py CONNINFO
Prints "<check> ok" or "FAIL <check>: ..." per check; exit 1 on any failure.
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


check("params", params)
check("binary", binary)
check("copy", copy_in)
check("error", error_then_ok)
conn.close()
sys.exit(1 if failures else 0)
