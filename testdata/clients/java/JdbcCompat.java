// pgjdbc against weir: DatabaseMetaData, prepared statements crossing
// prepareThreshold (binary transfer), fetch-size cursors and error recovery.
// Usage: java -cp /usr/share/java/postgresql.jar JdbcCompat.java <jdbc-url>
// Prints one line per check; exits 1 on the first failure.
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

    static int failures = 0;

    // section runs one check; a failure is reported and the next check
    // still runs, so one run lists every incompatibility.
    static void section(Connection c, String name, Section s) {
        try {
            s.run();
            System.out.println(name + " ok");
        } catch (Throwable t) {
            failures++;
            System.out.println("FAIL " + name + ": " + t.toString().replace('\n', ' '));
            try {
                if (!c.getAutoCommit()) c.rollback();
            } catch (SQLException ignored) {
            }
        }
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], "weir", "")) {
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
            st.execute("CREATE TABLE jdbc_items (id integer PRIMARY KEY, name text NOT NULL, price numeric(10,2), created timestamptz, big bigint)");
            st.execute("CREATE VIEW jdbc_cheap AS SELECT id, name FROM jdbc_items WHERE price < 10");
        }
        DatabaseMetaData md = c.getMetaData();

        // getTables: the table as TABLE, the view as VIEW.
        section(c, "getTables", () -> {
            Map<String, String> kinds = new TreeMap<>();
            try (ResultSet rs = md.getTables(null, "public", "jdbc%", new String[] {"TABLE", "VIEW"})) {
                while (rs.next()) kinds.put(rs.getString("TABLE_NAME"), rs.getString("TABLE_TYPE"));
            }
            eq("{jdbc_cheap=VIEW, jdbc_items=TABLE}", kinds.toString(), "getTables");
            List<String> onlyTables = new ArrayList<>();
            try (ResultSet rs = md.getTables(null, "public", "jdbc%", new String[] {"TABLE"})) {
                while (rs.next()) onlyTables.add(rs.getString("TABLE_NAME"));
            }
            eq("[jdbc_items]", onlyTables.toString(), "getTables(TABLE)");
        });

        // getColumns: names, java.sql.Types and TYPE_NAME, in order.
        section(c, "getColumns", () -> {
            List<String> cols = new ArrayList<>();
            try (ResultSet rs = md.getColumns(null, "public", "jdbc_items", null)) {
                while (rs.next()) {
                    cols.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("DATA_TYPE") + ":" + rs.getString("TYPE_NAME")
                            + ":" + rs.getString("IS_NULLABLE"));
                }
            }
            eq(Arrays.asList(
                    "id:" + Types.INTEGER + ":int4:NO",
                    "name:" + Types.VARCHAR + ":text:NO",
                    "price:" + Types.NUMERIC + ":numeric:YES",
                    "created:" + Types.TIMESTAMP + ":timestamptz:YES",
                    "big:" + Types.BIGINT + ":int8:YES"), cols, "getColumns");
        });

        // getPrimaryKeys.
        section(c, "getPrimaryKeys", () -> {
            List<String> pk = new ArrayList<>();
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "jdbc_items")) {
                while (rs.next()) pk.add(rs.getString("COLUMN_NAME") + "/" + rs.getInt("KEY_SEQ") + "/" + rs.getString("PK_NAME"));
            }
            eq("[id/1/jdbc_items_pkey]", pk.toString(), "getPrimaryKeys");
        });

        // getTypeInfo: non-empty and knows int4 as INTEGER.
        section(c, "getTypeInfo", () -> {
            int types = 0;
            boolean int4 = false;
            try (ResultSet rs = md.getTypeInfo()) {
                while (rs.next()) {
                    types++;
                    if ("int4".equals(rs.getString("TYPE_NAME"))) int4 = rs.getInt("DATA_TYPE") == Types.INTEGER;
                }
            }
            check(types > 10, "getTypeInfo returned only " + types + " rows");
            check(int4, "getTypeInfo: int4 missing or not INTEGER");
        });

        // PreparedStatement executed 6 times: from the 5th on pgjdbc uses a
        // named statement and binary results.
        section(c, "prepared", () -> {
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
        section(c, "fetchSize", () -> {
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

        // An error inside a transaction, rollback, then a working statement.
        section(c, "errorRecovery", () -> {
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
