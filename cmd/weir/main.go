// Command weir is the weir server: `weir serve` runs it on an embedded
// store; `weir verify` checks a data directory offline; `weir version`
// prints the version.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/engine/web"
	"github.com/weir-sql/weir/wire"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		if err := serve(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "weir:", err)
			os.Exit(1)
		}
	case "verify":
		if err := verify(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "weir:", err)
			if errors.Is(err, errDamaged) {
				os.Exit(1)
			}
			os.Exit(2)
		}
	case "rotate-secret-key":
		if err := rotateSecretKey(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "weir:", err)
			os.Exit(1)
		}
	case "version", "--version", "-v":
		fmt.Printf("weir %s (PostgreSQL protocol, server_version %s)\n", engine.Version, engine.ServerVersion)
	case "help", "-h", "--help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "weir: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  weir serve [--listen 127.0.0.1:5433] [--data ./weir-data] [--max-connections 100] [--snapshot-rows N] [--query-memory SIZE] [--streaming-state-memory 1GB] [--files-root DIR ...] [--http ADDR]
             [--log-format text|json] [--log-level info] [--event-log-retention 7d] [--event-log-max-rows 100000]
             [--audit-log-retention 30d] [--audit-log-max-rows 100000]
  weir verify [--data ./weir-data]   check a stopped server's data directory (read-only); exit 1 if damaged
  weir rotate-secret-key --data DIR --secret-key-file OLD --new-secret-key-file NEW   reseal a stopped server's secrets under a new key
  weir version
`)
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:5433", "address to accept PostgreSQL clients on")
	data := fs.String("data", "./weir-data", "data directory (created if missing)")
	maxConns := fs.Int("max-connections", 100, "maximum concurrent client connections")
	maxMsg := fs.Int("max-message-bytes", 64<<20, "largest client message accepted")
	snapRows := fs.Int64("snapshot-rows", 0, "input rows a streaming table reads between two state snapshots (0: as many as its state holds, at least 65536)")
	stateMem := fs.String("streaming-state-memory", "1GB", "most state memory one streaming table may hold before it fails with 53200 (a table's state_memory_limit option overrides it; 0: no limit)")
	queryMem := fs.String("query-memory", "", "memory all batch queries may hold together, e.g. 2GB (default: a quarter of physical RAM or of the cgroup limit); past it a query fails with 53200")
	httpAddr := fs.String("http", "", "address to serve /metrics (Prometheus) and the live page / on, e.g. 127.0.0.1:8080 (default: none)")
	secretKeyFile := fs.String("secret-key-file", "", "file of the key CREATE SECRET seals values with: 32 random bytes or 64 hex digits, outside --data (default: none; CREATE SECRET refused)")
	logFormat := fs.String("log-format", "text", "server log format: text (key=value) or json (one object a line)")
	logLevel := fs.String("log-level", "info", "least level logged: debug, info, warn or error")
	eventRetention := fs.String("event-log-retention", "7d", "how long the event log (event_log(), weir_catalog.event_log) keeps events, e.g. 7d, 12h (0: forever)")
	eventMaxRows := fs.Int("event-log-max-rows", engine.DefaultEventLogMaxRows, "most events the event log keeps; the oldest go first (0: no limit)")
	auditRetention := fs.String("audit-log-retention", "30d", "how long the audit log (weir_catalog.audit_log) keeps events, e.g. 30d, 12h (0: forever)")
	auditMaxRows := fs.Int("audit-log-max-rows", engine.DefaultAuditLogMaxRows, "most events the audit log keeps; the oldest go first (0: no limit)")
	tlsCert := fs.String("tls-cert", "", "PEM certificate (chain) for TLS; with --tls-key, clients that ask for SSL get TLS 1.2+")
	tlsKey := fs.String("tls-key", "", "PEM private key of --tls-cert")
	requireTLS := fs.Bool("require-tls", false, "refuse clients that do not use TLS (28000), loopback ones too; needs --tls-cert")
	tlsClientCA := fs.String("tls-client-ca", "", "PEM CA bundle client certificates are verified against; TLS clients are then asked for one (needs --tls-cert)")
	tlsClientCert := fs.String("tls-client-cert", "", "require: every client must use TLS and present a certificate whose CN is its user name (the rules `hostssl all all all cert`; needs --tls-client-ca)")
	hbaFile := fs.String("hba-file", "", "client authentication rules in pg_hba.conf syntax (local/host/hostssl/hostnossl; trust, scram-sha-256, cert, reject); default: roles with a password by SCRAM-SHA-256, roles without one from loopback only")
	var filesRoots stringList
	fs.Var(&filesRoots, "files-root", "a folder whose files read_files, files sources and COPY FROM/TO 'file' may read and write (repeatable; a relative path is taken under the first; default: the working directory)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, r := range filesRoots {
		if st, err := os.Stat(r); err != nil || !st.IsDir() {
			return fmt.Errorf("--files-root %s: not a directory", r)
		}
	}
	var tlsConfig *tls.Config
	if (*tlsCert == "") != (*tlsKey == "") {
		return fmt.Errorf("--tls-cert and --tls-key go together")
	}
	if *tlsCert != "" {
		c, err := wire.LoadTLS(*tlsCert, *tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		tlsConfig = c
	} else if *requireTLS {
		return fmt.Errorf("--require-tls needs --tls-cert and --tls-key")
	}
	hba, err := loadAuthRules(tlsConfig, *tlsClientCA, *tlsClientCert, *hbaFile) // auth_flags.go
	if err != nil {
		return err
	}
	queryMemory := defaultQueryMemory()
	if *queryMem != "" {
		n, ok := engine.ParseMemorySize(*queryMem)
		if !ok {
			return fmt.Errorf("--query-memory must be a size such as 512MB or 4GB, not %q", *queryMem)
		}
		queryMemory = n
	}
	if *snapRows < 0 {
		return fmt.Errorf("--snapshot-rows must be 0 (automatic) or a positive number of rows, not %d", *snapRows)
	}
	log, err := newLogger(os.Stderr, *logFormat, *logLevel) // logging.go
	if err != nil {
		return err
	}
	// Packages below the engine (the store, the files connector) log
	// through slog's default: the same logger.
	slog.SetDefault(log)
	eventAge, err := engine.ParseRetention(*eventRetention)
	if err != nil {
		return fmt.Errorf("--event-log-retention: %s", sqlerrMessage(err))
	}
	maxEvents := *eventMaxRows
	if maxEvents == 0 {
		maxEvents = -1
	} else if maxEvents < 0 {
		return fmt.Errorf("--event-log-max-rows must be 0 (no limit) or a positive number, not %d", maxEvents)
	}
	auditAge, auditRows, err := auditLogBounds(*auditRetention, *auditMaxRows) // audit_flags.go
	if err != nil {
		return err
	}
	// WEIR_CPUPROFILE=<file> profiles the server until it stops (for
	// finding hot spots in end-to-end workloads).
	if path := os.Getenv("WEIR_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	stateLimit := int64(-1)
	if *stateMem != "0" {
		n, ok := engine.ParseMemorySize(*stateMem)
		if !ok {
			return fmt.Errorf("--streaming-state-memory must be a size such as 1GB or 512MB (0: no limit), not %q", *stateMem)
		}
		stateLimit = n
	}
	secretKey, err := engine.ReadSecretKeyFile(*secretKeyFile, *data) // engine/secrets_key.go
	if err != nil {
		return err
	}
	eng, err := engine.Open(engine.Config{SecretKey: secretKey, DataDir: *data, SnapshotRows: *snapRows, StreamingStateMemory: stateLimit, QueryMemory: queryMemory, FilesRoots: filesRoots,
		Logger: log, EventLogRetention: eventAge, EventLogMaxRows: maxEvents,
		AuditLogRetention: auditAge, AuditLogMaxRows: auditRows})
	if err != nil {
		return fmt.Errorf("open data directory %s: %w", *data, err)
	}
	defer eng.Close()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := wire.NewServer(eng, wire.Config{MaxConnections: *maxConns, MaxMessageSize: *maxMsg, Logger: log,
		TLS: tlsConfig, RequireTLS: *requireTLS, HBA: hba})
	if *httpAddr != "" {
		// Bound before the server says it is ready: a busy port fails the
		// start, not a request later.
		hl, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			return fmt.Errorf("--http %s: %w", *httpAddr, err)
		}
		hs := &http.Server{Handler: web.Handler(eng), ReadHeaderTimeout: 10 * time.Second}
		defer hs.Close()
		go hs.Serve(hl)
		log.Info("serving /metrics and the live page", "http", hl.Addr().String())
	}
	log.Info("weir is ready", "listen", l.Addr().String(), "data", *data, "version", engine.Version, "query_memory", queryMemory)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case sig := <-sigs:
		log.Info("shutting down", "signal", sig.String())
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("shutdown", "err", err)
		}
		return nil
	case err := <-done:
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		return err
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
