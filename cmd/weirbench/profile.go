package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/wire"
)

// runProfile runs the benchmark workloads against weir in-process (only so
// that a CPU profile can be taken; the benchmark numbers come from the real
// binary) and writes stream.prof, fresh.prof (see profileStreaming),
// copy.prof, groupby.prof and select1.prof (not with -streaming).
func runProfile(c config) error {
	ctx := context.Background()
	if err := os.MkdirAll(c.profile, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "weirbench-prof-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	csvPath := filepath.Join(tmp, "orders.csv")
	if !c.streaming {
		if _, err := writeCSV(csvPath, c.rows); err != nil {
			return err
		}
	}
	eng, err := engine.Open(engine.Config{DataDir: filepath.Join(tmp, "data")})
	if err != nil {
		return err
	}
	defer eng.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := wire.NewServer(eng, wire.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go srv.Serve(l)
	defer srv.Shutdown(ctx)
	url := fmt.Sprintf("postgres://weir@%s/weir?sslmode=disable", l.Addr())
	conn, err := connect(url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)

	prof := func(name string, f func() error) error {
		pf, err := os.Create(filepath.Join(c.profile, name))
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		err = f()
		pprof.StopCPUProfile()
		logf("wrote %s", pf.Name())
		return err
	}
	if err := profileStreaming(ctx, c, tmp, conn, url, prof); err != nil {
		return err
	}
	if c.streaming {
		return nil
	}
	if err := prof("copy.prof", func() error {
		for i := 0; i < c.repeat; i++ {
			el, err := copyOnce(ctx, conn, csvPath, c.rows)
			if err != nil {
				return err
			}
			logf("COPY in-process: %s", fmtVal(el, "s"))
		}
		return nil
	}); err != nil {
		return err
	}
	if err := prof("groupby.prof", func() error {
		for i := 0; i < c.repeat; i++ {
			el, err := groupByOnce(ctx, conn, c.gbRuns)
			if err != nil {
				return err
			}
			logf("GROUP BY in-process: %s", fmtVal(el, "s"))
		}
		return nil
	}); err != nil {
		return err
	}
	return prof("select1.prof", func() error {
		for _, simple := range []bool{false, true} {
			for i := 0; i < c.repeat; i++ {
				r, err := select1Once(ctx, conn, c.roundTrips, simple)
				if err != nil {
					return err
				}
				logf("SELECT 1 in-process (simple=%v): %s", simple, fmtVal(r, "/s"))
			}
		}
		return nil
	})
}
