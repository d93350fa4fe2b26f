// node-postgres against weir: simple and extended protocol, value parsing,
// named prepared statements and error recovery. Usage: node basic.js <url>.
// Prints one line per check; exits 1 on the first failed assertion.
'use strict';
const assert = require('assert');
const { Client } = require('pg');

async function main() {
  const client = new Client({ connectionString: process.argv[2] });
  await client.connect();
  try {
    // Parameterless: simple Query protocol.
    let r = await client.query('SELECT 1 AS one, \'x\'::text AS t');
    assert.deepStrictEqual(r.rows, [{ one: 1, t: 'x' }]);
    assert.strictEqual(r.fields[0].dataTypeID, 23);
    assert.strictEqual(r.fields[1].dataTypeID, 25);
    console.log('simple ok');

    // Parameterised: Parse (no param OIDs) / Bind (text) / Describe P / Execute.
    r = await client.query(
      "SELECT $1::text AS s, $2::int AS i, 9007199254740993::int8 AS big, 12.50::numeric(10,2) AS num, " +
      "'2024-01-02 03:04:05.678+00'::timestamptz AS ts, true AS b, '{\"k\": [1, 2]}'::jsonb AS j",
      ['hello', 42]);
    assert.strictEqual(r.rows.length, 1);
    const row = r.rows[0];
    assert.strictEqual(row.s, 'hello');
    assert.strictEqual(row.i, 42);
    assert.strictEqual(row.big, '9007199254740993'); // int8 is a string
    assert.strictEqual(row.num, '12.50');            // numeric is a string
    assert.ok(row.ts instanceof Date, 'timestamptz must parse to a Date');
    assert.strictEqual(row.ts.getTime(), Date.UTC(2024, 0, 2, 3, 4, 5, 678));
    assert.strictEqual(row.b, true);
    assert.deepStrictEqual(row.j, { k: [1, 2] });
    assert.deepStrictEqual(r.fields.map(f => f.dataTypeID), [25, 23, 20, 1700, 1184, 16, 3802]);
    console.log('params ok');

    // Named prepared query: Parse once, then Bind/Execute only.
    const named = { name: 'weir_add', text: 'SELECT $1::int + $2::int AS sum', values: [1, 2] };
    r = await client.query(named);
    assert.strictEqual(r.rows[0].sum, 3);
    r = await client.query({ name: 'weir_add', text: named.text, values: [40, 2] });
    assert.strictEqual(r.rows[0].sum, 42);
    console.log('named ok');

    // Table round trip through the extended protocol.
    await client.query('CREATE TABLE node_t (id int PRIMARY KEY, name text, amount numeric(10,2))');
    for (let i = 1; i <= 3; i++) {
      await client.query('INSERT INTO node_t VALUES ($1, $2, $3)', [i, 'n' + i, (i * 1.5).toFixed(2)]);
    }
    r = await client.query('SELECT id, name, amount FROM node_t WHERE id >= $1 ORDER BY id', [2]);
    assert.deepStrictEqual(r.rows, [{ id: 2, name: 'n2', amount: '3.00' }, { id: 3, name: 'n3', amount: '4.50' }]);
    console.log('table ok');

    // Errors carry the SQLSTATE; the connection stays usable.
    let err = null;
    try { await client.query('SELECT * FROM no_such_table'); } catch (e) { err = e; }
    assert.ok(err, 'missing table must fail');
    assert.strictEqual(err.code, '42P01');
    err = null;
    try { await client.query('SELECT 1/$1::int', [0]); } catch (e) { err = e; }
    assert.ok(err, 'division by zero must fail');
    assert.strictEqual(err.code, '22012');
    r = await client.query('SELECT $1::int AS after', [7]);
    assert.strictEqual(r.rows[0].after, 7);
    console.log('error ok ' + '42P01 22012');
  } finally {
    await client.end();
  }
}

main().then(() => console.log('done'), (e) => { console.error(e && e.stack || e); process.exit(1); });
