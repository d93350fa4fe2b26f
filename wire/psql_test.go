package wire_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weir-sql/weir/wire"
)

// runPsql runs the real psql against the test server.
func runPsql(t *testing.T, ts *testServer, stdin string, args ...string) string {
	t.Helper()
	path, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	host, port, _ := strings.Cut(ts.addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{"-X", "-h", host, "-p", port, "-U", "tester", "-d", "db", "-v", "ON_ERROR_STOP=1"}, args...)...)
	cmd.Env = append(os.Environ(), "PGSSLMODE=prefer", "PGCONNECT_TIMEOUT=10", "PSQLRC=/dev/null")
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestPsql(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})

	out := runPsql(t, ts, "", "-A", "-c", "select rows")
	want := "id|name|ts\n1|alpha|2024-01-02 03:04:05+00\n2||2024-06-30 12:00:00.000123+00\n3|gamma\twith tab|1999-12-31 23:59:59+00\n(3 rows)\n"
	if out != want {
		t.Errorf("select\n got %q\nwant %q", out, want)
	}

	out = runPsql(t, ts, "7\tseven\n8\t\\N\n\\.\n", "-c", `\copy t from stdin`)
	if strings.TrimSpace(out) != "COPY 2" {
		t.Errorf("\\copy from: %q", out)
	}
	if got := h.copiedRows(); len(got) != 2 || got[0] != [2]string{"7", "seven"} || got[1] != [2]string{"8", "<NULL>"} {
		t.Errorf("copied %q", got)
	}

	out = runPsql(t, ts, "", "-c", `\copy (copy out) to stdout`)
	if !strings.HasPrefix(out, "1\talpha\t2024-01-02 03:04:05+00\n2\t\\N\t") {
		t.Errorf("\\copy to: %q", out)
	}

	// Two statements in one -c string arrive as one Query message.
	out = runPsql(t, ts, "", "-A", "-t", "-c", "select many; select rows")
	if !strings.HasPrefix(out, "1\n2\n3\n4\n5\n6\n7\n1|alpha|") {
		t.Errorf("two statements: %q", out)
	}
}
