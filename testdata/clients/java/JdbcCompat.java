// pgjdbc against weir and PostgreSQL 15: every DatabaseMetaData call that
// DBeaver, DataGrip and Metabase make, ResultSetMetaData, prepared
// statements crossing prepareThreshold (binary transfer), fetch-size
// cursors and error recovery.
//
// Usage: java -cp /usr/share/java/postgresql.jar JdbcCompat.java <jdbc-url>
//
// The program creates the same objects on whichever server it is given and
// prints what each call returns, one line per row, in an order that does not
// depend on the server. cmd/weir/clients_test.go runs it against weir and
// against PostgreSQL 15 and compares the two outputs. A call that throws
// prints "ERROR <call>: <SQLSTATE> <message>" and the run goes on, so one
// run lists every incompatibility. Checks whose answer is fixed print
// "<check> ok" or "FAIL <check>: ...".
import java.sql.*;
import java.util.*;

public class JdbcCompat {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    static void eq(Object want, Object got, String what) {
        if (!Objects.equals(want, got)) throw new AssertionError(what + ": want " + want + ", got " + got);
    }

    interface Section {
        void run() throws Exception;
    }

    interface Call {
        ResultSet open() throws SQLException;
    }

    interface RowFilter {
        boolean keep(ResultSet rs) throws SQLException;
    }

    static int failures = 0;
    static Connection conn;

    static void rollbackIfNeeded() {
        try {
            if (!conn.getAutoCommit()) conn.rollback();
        } catch (SQLException ignored) {
        }
    }

    // section runs one check; a failure is reported and the next check
    // still runs.
    static void section(String name, Section s) {
        try {
            s.run();
            System.out.println(name + " ok");
        } catch (Throwable t) {
            failures++;
            System.out.println("FAIL " + name + ": " + t.toString().replace('\n', ' '));
            rollbackIfNeeded();
        }
    }

    static String cell(ResultSet rs, int i) throws SQLException {
        Object v = rs.getObject(i);
        if (v == null) return "NULL";
        if (v instanceof Array) {
            Object[] a = (Object[]) ((Array) v).getArray();
            return Arrays.toString(a);
        }
        return v.toString().replace('\n', ' ');
    }

    // dump prints the call's column labels and then its rows (those the
    // filter keeps), sorted so that row order the JDBC spec leaves open
    // does not matter; sorted is false where the spec fixes the order and
    // the test should see it.
    static void dump(String name, boolean sorted, RowFilter filter, Call call) {
        try (ResultSet rs = call.open()) {
            ResultSetMetaData md = rs.getMetaData();
            StringBuilder cols = new StringBuilder();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                if (i > 1) cols.append(',');
                cols.append(md.getColumnLabel(i));
            }
            System.out.println(name + " columns: " + cols);
            List<String> rows = new ArrayList<>();
            while (rs.next()) {
                if (filter != null && !filter.keep(rs)) continue;
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    if (i > 1) row.append(" | ");
                    row.append(cell(rs, i));
                }
                rows.add(row.toString());
            }
            if (sorted) Collections.sort(rows);
            for (String r : rows) System.out.println(name + ": " + r);
            System.out.println(name + " rows: " + rows.size());
        } catch (Throwable t) {
            String state = t instanceof SQLException ? ((SQLException) t).getSQLState() : "";
            System.out.println("ERROR " + name + ": " + state + " " + t.toString().replace('\n', ' '));
            rollbackIfNeeded();
        }
    }

    static RowFilter column(String label, String... values) {
        Set<String> keep = new HashSet<>(Arrays.asList(values));
        return rs -> keep.contains(rs.getString(label));
    }

    static RowFilter prefix(String label, String p) {
        return rs -> {
            String v = rs.getString(label);
            return v != null && v.startsWith(p);
        };
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], "weir", "")) {
            conn = c;
            run(c);
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        if (failures > 0) System.exit(1);
        System.out.println("done");
    }

    static void run(Connection c) throws Exception {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE jdbc_items (id integer PRIMARY KEY, name text NOT NULL, price numeric(10,2) DEFAULT 0, "
                    + "created timestamptz, big bigint, flag boolean, code varchar(20), ch char(3), d date, "
                    + "f float8, r real, sm smallint, b bytea, j jsonb, u uuid, arr int[], ts timestamp, iv interval)");
            st.execute("CREATE VIEW jdbc_cheap AS SELECT id, name FROM jdbc_items WHERE price < 10");
            st.execute("CREATE SCHEMA jdbc_s");
            st.execute("CREATE TABLE jdbc_s.jdbc_pair (a integer, b text, c bigint NOT NULL, PRIMARY KEY (b, a))");
            st.execute("CREATE TABLE jdbc_nokey (x integer, y text)");
        }
        DatabaseMetaData md = c.getMetaData();

        // Fixed answers (also true of PostgreSQL).
        section("getTables", () -> {
            Map<String, String> kinds = new TreeMap<>();
            try (ResultSet rs = md.getTables(null, "public", "jdbc%", new String[] {"TABLE", "VIEW"})) {
                while (rs.next()) kinds.put(rs.getString("TABLE_NAME"), rs.getString("TABLE_TYPE"));
            }
            eq("{jdbc_cheap=VIEW, jdbc_items=TABLE, jdbc_nokey=TABLE}", kinds.toString(), "getTables");
        });
        section("getPrimaryKeys", () -> {
            List<String> pk = new ArrayList<>();
            try (ResultSet rs = md.getPrimaryKeys(null, "jdbc_s", "jdbc_pair")) {
                while (rs.next()) pk.add(rs.getString("COLUMN_NAME") + "/" + rs.getInt("KEY_SEQ") + "/" + rs.getString("PK_NAME"));
            }
            eq("[b/1/jdbc_pair_pkey, a/2/jdbc_pair_pkey]", pk.toString(), "getPrimaryKeys");
        });

        // Everything a metadata browser asks, compared with PostgreSQL.
        RowFilter ours = rs -> {
            String s = rs.getString("TABLE_SCHEM");
            return "public".equals(s) || "jdbc_s".equals(s);
        };
        dump("getCatalogs", true, null, () -> md.getCatalogs());
        dump("getSchemas", true, prefix("TABLE_SCHEM", "jdbc"), () -> md.getSchemas());
        dump("getSchemas(pattern)", true, null, () -> md.getSchemas(null, "jdbc%"));
        dump("getTableTypes", false, null, () -> md.getTableTypes());
        dump("getTables(all)", false, ours, () -> md.getTables(null, null, "jdbc%", null));
        dump("getTables(pg_catalog)", false, column("TABLE_NAME", "pg_class", "pg_type", "pg_tables"),
                () -> md.getTables(null, "pg_catalog", "pg_%", null));
        dump("getColumns", false, null, () -> md.getColumns(null, "public", "jdbc_items", "%"));
        dump("getColumns(view)", false, null, () -> md.getColumns(null, "public", "jdbc_cheap", null));
        dump("getColumns(schema)", false, null, () -> md.getColumns(null, "jdbc_s", "%", "%"));
        dump("getPrimaryKeys(all)", false, null, () -> md.getPrimaryKeys(null, null, "jdbc_items"));
        dump("getIndexInfo", false, null, () -> md.getIndexInfo(null, "public", "jdbc_items", false, false));
        dump("getIndexInfo(unique)", false, null, () -> md.getIndexInfo(null, "jdbc_s", "jdbc_pair", true, true));
        dump("getIndexInfo(none)", false, null, () -> md.getIndexInfo(null, "public", "jdbc_nokey", false, true));
        dump("getBestRowIdentifier", false, null,
                () -> md.getBestRowIdentifier(null, "jdbc_s", "jdbc_pair", DatabaseMetaData.bestRowSession, true));
        dump("getBestRowIdentifier(none)", false, null,
                () -> md.getBestRowIdentifier(null, "public", "jdbc_nokey", DatabaseMetaData.bestRowSession, true));
        dump("getVersionColumns", false, null, () -> md.getVersionColumns(null, "public", "jdbc_items"));
        dump("getTablePrivileges", true, ours, () -> md.getTablePrivileges(null, null, "jdbc%"));
        dump("getColumnPrivileges", true, column("COLUMN_NAME", "id", "price"), () -> md.getColumnPrivileges(null, "public", "jdbc_items", "%"));
        dump("getProcedures", true, null, () -> md.getProcedures(null, "public", "%"));
        dump("getProcedureColumns", true, null, () -> md.getProcedureColumns(null, "public", "%", "%"));
        dump("getFunctions", true, null, () -> md.getFunctions(null, "public", "%"));
        dump("getFunctionColumns", true, null, () -> md.getFunctionColumns(null, "public", "%", "%"));
        dump("getFunctions(version)", true, null, () -> md.getFunctions(null, "pg_catalog", "version"));
        dump("getFunctionColumns(version)", true, null, () -> md.getFunctionColumns(null, "pg_catalog", "version", "%"));
        dump("getProcedures(now)", true, null, () -> md.getProcedures(null, "pg_catalog", "now"));
        dump("getProcedureColumns(now)", true, null, () -> md.getProcedureColumns(null, "pg_catalog", "now", "%"));
        dump("getUDTs", true, rs -> "public".equals(rs.getString("TYPE_SCHEM")) || "jdbc_s".equals(rs.getString("TYPE_SCHEM")), () -> md.getUDTs(null, null, "%", null));
        dump("getSuperTables", true, null, () -> md.getSuperTables(null, "public", "jdbc_items"));
        dump("getSuperTypes", true, null, () -> md.getSuperTypes(null, "public", "%"));
        dump("getClientInfoProperties", true, null, () -> md.getClientInfoProperties());
        dump("getTypeInfo", false, column("TYPE_NAME", "bool", "int2", "int4", "int8", "float4", "float8", "numeric",
                "text", "varchar", "bpchar", "date", "timestamp", "timestamptz", "interval", "bytea", "jsonb", "uuid", "_int4"),
                () -> md.getTypeInfo());
        // Keys: weir has no foreign keys, so these must answer with no rows,
        // at once (each joins nine catalogs in one statement, which needs
        // the planner's join ordering).
        dump("getImportedKeys", false, null, () -> md.getImportedKeys(null, "public", "jdbc_items"));
        dump("getExportedKeys", false, null, () -> md.getExportedKeys(null, "public", "jdbc_items"));
        dump("getCrossReference", false, null,
                () -> md.getCrossReference(null, "public", "jdbc_items", null, "jdbc_s", "jdbc_pair"));

        // weir's own views (weir_catalog) are listed like any view, so that
        // a metadata browser shows them. PostgreSQL has no such views: there
        // the section only prints its name, as weir's does when it passes.
        section("weir_catalog", () -> {
            if (!md.getDatabaseProductVersion().contains("weir")) return;
            List<String> views = new ArrayList<>();
            try (ResultSet rs = md.getTables(null, "weir_catalog", "%", null)) {
                while (rs.next()) views.add(rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
            }
            check(views.contains("streaming_progress:VIEW"), "getTables(weir_catalog): " + views);
            List<String> cols = new ArrayList<>();
            try (ResultSet rs = md.getColumns(null, "weir_catalog", "streaming_progress", "%")) {
                while (rs.next()) cols.add(rs.getString("COLUMN_NAME"));
            }
            check(cols.size() > 10 && cols.get(0).equals("name") && cols.contains("watermark"),
                    "getColumns(weir_catalog.streaming_progress): " + cols);
            // A streaming table opened in a metadata browser: every call a
            // table's tabs make answers.
            try (Statement st = c.createStatement()) {
                st.execute("CREATE STREAMING TABLE jdbc_totals AS SELECT name, count(*) AS n FROM STREAM jdbc_items GROUP BY name");
            }
            int rows = 0;
            for (Call call : new Call[] {
                    () -> md.getTables(null, "public", "jdbc_totals", null),
                    () -> md.getColumns(null, "public", "jdbc_totals", "%"),
                    () -> md.getPrimaryKeys(null, "public", "jdbc_totals"),
                    () -> md.getIndexInfo(null, "public", "jdbc_totals", false, true),
                    () -> md.getImportedKeys(null, "public", "jdbc_totals"),
                    () -> md.getExportedKeys(null, "public", "jdbc_totals"),
                    () -> md.getTablePrivileges(null, "public", "jdbc_totals"),
                    () -> md.getColumnPrivileges(null, "public", "jdbc_totals", "%"),
                    () -> md.getBestRowIdentifier(null, "public", "jdbc_totals", DatabaseMetaData.bestRowSession, true),
                    () -> md.getVersionColumns(null, "public", "jdbc_totals")}) {
                try (ResultSet rs = call.open()) {
                    while (rs.next()) rows++;
                }
            }
            check(rows > 0, "no metadata rows for a streaming table");
        });

        section("DatabaseMetaData scalars", () -> {
            System.out.println("identifierQuoteString: " + md.getIdentifierQuoteString());
            System.out.println("searchStringEscape: " + md.getSearchStringEscape());
            System.out.println("maxColumnNameLength: " + md.getMaxColumnNameLength());
            System.out.println("userName: " + md.getUserName());
            System.out.println("supportsTransactions: " + md.supportsTransactions());
            System.out.println("databaseMajorVersion: " + md.getDatabaseMajorVersion());
            System.out.println("SQLKeywords: " + md.getSQLKeywords());
            System.out.println("numericFunctions: " + md.getNumericFunctions());
        });

        // ResultSetMetaData of a query: pgjdbc asks pg_attribute and
        // pg_class for nullability, base names and serial-ness.
        section("ResultSetMetaData", () -> {
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, name, price AS cost, created, code, ch, arr, 1 + 1 AS two, "
                         + "p.c FROM jdbc_items, jdbc_s.jdbc_pair p WHERE false")) {
                ResultSetMetaData m = rs.getMetaData();
                for (int i = 1; i <= m.getColumnCount(); i++) {
                    System.out.println("ResultSetMetaData: " + m.getColumnName(i) + " | " + m.getColumnLabel(i) + " | "
                            + m.getColumnType(i) + " | " + m.getColumnTypeName(i) + " | " + m.getPrecision(i) + " | "
                            + m.getScale(i) + " | " + m.isNullable(i) + " | " + m.isAutoIncrement(i) + " | "
                            + m.getTableName(i) + " | " + m.getSchemaName(i) + " | " + m.getColumnDisplaySize(i) + " | "
                            + m.getColumnClassName(i) + " | " + m.isCaseSensitive(i) + " | " + m.isSigned(i));
                }
            }
        });

        // PreparedStatement executed 6 times: from the 5th on pgjdbc uses a
        // named statement and binary results.
        section("prepared", () -> {
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO jdbc_items (id, name, price, created, big) VALUES (?, ?, ?, ?, ?)")) {
                for (int i = 1; i <= 7; i++) {
                    ins.setInt(1, i);
                    ins.setString(2, "item" + i);
                    ins.setBigDecimal(3, new java.math.BigDecimal(i + ".25"));
                    ins.setTimestamp(4, Timestamp.from(java.time.Instant.parse("2024-01-0" + i + "T10:00:00Z")));
                    ins.setLong(5, 10000000000L * i);
                    eq(1, ins.executeUpdate(), "insert count");
                }
            }
            try (PreparedStatement q = c.prepareStatement("SELECT id, name, price, created, big FROM jdbc_items WHERE id = ? AND name = ?")) {
                for (int i = 1; i <= 6; i++) {
                    q.setInt(1, i);
                    q.setString(2, "item" + i);
                    try (ResultSet rs = q.executeQuery()) {
                        check(rs.next(), "prepared execution " + i + ": no row");
                        eq(i, rs.getInt(1), "id #" + i);
                        eq("item" + i, rs.getString(2), "name #" + i);
                        eq(new java.math.BigDecimal(i + ".25"), rs.getBigDecimal(3), "price #" + i);
                        eq(java.time.Instant.parse("2024-01-0" + i + "T10:00:00Z"), rs.getTimestamp(4).toInstant(), "created #" + i);
                        eq(10000000000L * i, rs.getLong(5), "big #" + i);
                        check(!rs.next(), "prepared execution " + i + ": extra row");
                    }
                }
            }
        });

        // Fetch-size cursor: autocommit off, fetch 2 rows at a time over 7.
        section("fetchSize", () -> {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.setFetchSize(2);
                List<Integer> ids = new ArrayList<>();
                try (ResultSet rs = st.executeQuery("SELECT g FROM generate_series(1, 7) AS g ORDER BY g")) {
                    while (rs.next()) ids.add(rs.getInt(1));
                }
                eq("[1, 2, 3, 4, 5, 6, 7]", ids.toString(), "fetch-size cursor");
            }
            c.commit();
        });

        // A large fetch-size cursor: 200,000 rows fetched 1,000 per Execute
        // (the server streams them; it holds no more than a batch).
        section("fetchSizeLarge", () -> {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.setFetchSize(1000);
                long n = 0, sum = 0;
                try (ResultSet rs = st.executeQuery("SELECT g, repeat('x', 100) FROM generate_series(1, 200000) AS g")) {
                    while (rs.next()) {
                        n++;
                        sum += rs.getLong(1);
                        check(rs.getString(2).length() == 100, "row " + n);
                    }
                }
                eq(200000L, n, "rows");
                eq(200000L * 200001 / 2, sum, "sum");
            }
            c.commit();
        });

        // An error after rows were fetched: the rows before it arrive, then
        // the SQLSTATE (the failing row is the first of weir's 8192-row
        // batch, where weir and PostgreSQL have sent the same rows); the
        // transaction is aborted until rollback.
        section("errorMidResult", () -> {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.setFetchSize(1000);
                long n = 0;
                String state = null;
                try (ResultSet rs = st.executeQuery("SELECT 1/(16385-g) FROM generate_series(1, 20000) AS g")) {
                    while (rs.next()) n++;
                } catch (SQLException e) {
                    state = e.getSQLState();
                }
                eq("22012", state, "SQLSTATE");
                // pgjdbc drops the rows of the fetch that failed: compared
                // with PostgreSQL's run, not fixed here.
                System.out.println("errorMidResult: " + n + " rows before the error");
                String aborted = null;
                try {
                    st.executeQuery("SELECT 1");
                } catch (SQLException e) {
                    aborted = e.getSQLState();
                }
                eq("25P02", aborted, "after the error");
            }
            c.rollback();
        });

        // An error inside a transaction, rollback, then a working statement.
        section("errorRecovery", () -> {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                String state = null;
                try {
                    st.executeQuery("SELECT * FROM jdbc_missing");
                } catch (SQLException e) {
                    state = e.getSQLState();
                }
                eq("42P01", state, "error SQLSTATE");
                c.rollback();
                try (ResultSet rs = st.executeQuery("SELECT 6 * 7")) {
                    check(rs.next(), "statement after rollback returned no row");
                    eq(42, rs.getInt(1), "statement after rollback");
                }
                c.commit();
            }
            c.setAutoCommit(true);
        });
    }
}
