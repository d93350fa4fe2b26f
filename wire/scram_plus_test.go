package wire_test

import (
	"context"
	"crypto/elliptic"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/wire"
)

// startPasswordTLSServer serves TLS with a certificate from a CA on curve
// (P-256 signs with SHA-256, P-384 with SHA-384: the two hashes
// tls-server-end-point picks between) and role carol with password "pw".
func startPasswordTLSServer(t *testing.T, curve elliptic.Curve, cfg wire.Config) (*testServer, *testPKI) {
	t.Helper()
	pki := newTestPKI(t, curve)
	certFile, keyFile := pki.issue(pkix.Name{CommonName: "localhost"}, true)
	tc, err := wire.LoadTLS(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLS = tc
	h := newTestHandler()
	v, err := wire.SCRAMVerifier("pw")
	if err != nil {
		t.Fatal(err)
	}
	h.roles["carol"] = v
	return startServer(t, h, cfg), pki
}

// TestSCRAMPlusPgx: pgx with channel_binding=require only succeeds when the
// exchange was SCRAM-SHA-256-PLUS and the server's signature checked out;
// with a SHA-256- and a SHA-384-signed server certificate.
func TestSCRAMPlusPgx(t *testing.T) {
	for _, curve := range []elliptic.Curve{elliptic.P256(), elliptic.P384()} {
		ts, pki := startPasswordTLSServer(t, curve, wire.Config{})
		_, port, _ := net.SplitHostPort(ts.addr)
		ctx := testCtx(t)
		dsn := fmt.Sprintf("postgres://carol:pw@localhost:%s/db?sslmode=verify-full&sslrootcert=%s&channel_binding=require", port, pki.CAFile)
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("%s: channel_binding=require: %v", curve.Params().Name, err)
		}
		var n int
		if err := conn.QueryRow(ctx, "select $1", 7).Scan(&n); err != nil || n != 7 {
			t.Errorf("query: %d %v", n, err)
		}
		conn.Close(ctx)
		// A wrong password over PLUS is still 28P01.
		_, err = pgx.Connect(ctx, strings.Replace(dsn, "carol:pw", "carol:nope", 1))
		if code := pgErrCode(err); code != "28P01" {
			t.Errorf("%s: wrong password with channel binding: %v", curve.Params().Name, err)
		}
		// In the clear there is nothing to bind to: pgx refuses itself,
		// as the server offers only SCRAM-SHA-256.
		_, err = pgx.Connect(ctx, fmt.Sprintf("postgres://carol:pw@localhost:%s/db?sslmode=disable&channel_binding=require", port))
		if err == nil || !strings.Contains(err.Error(), "SCRAM-SHA-256-PLUS") {
			t.Errorf("clear text with channel_binding=require: %v", err)
		}
		// channel_binding=disable over TLS uses plain SCRAM with "n".
		conn, err = pgx.Connect(ctx, strings.Replace(dsn, "channel_binding=require", "channel_binding=disable", 1))
		if err != nil {
			t.Fatalf("channel_binding=disable: %v", err)
		}
		conn.Close(ctx)
	}
}

// TestSCRAMPlusPsql: libpq 15's channel_binding=require.
func TestSCRAMPlusPsql(t *testing.T) {
	ts, pki := startPasswordTLSServer(t, elliptic.P256(), wire.Config{})
	path, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql not installed")
	}
	_, port, _ := net.SplitHostPort(ts.addr)
	for _, c := range []struct{ conninfo, want string }{
		{"sslmode=verify-full sslrootcert=" + pki.CAFile + " channel_binding=require", "1\n2\n3\n"},
		{"sslmode=require channel_binding=prefer", "1\n2\n3\n"},
		{"sslmode=disable channel_binding=require", "channel binding required, but SSL not in use"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, path, "-X", "-A", "-t", fmt.Sprintf("host=localhost port=%s user=carol dbname=db %s", port, c.conninfo), "-c", "select many")
		cmd.Env = append(os.Environ(), "PGPASSWORD=pw", "PSQLRC=/dev/null")
		out, _ := cmd.CombinedOutput()
		cancel()
		if !strings.Contains(string(out), c.want) {
			t.Errorf("psql %s: %q, want %q", c.conninfo, out, c.want)
		}
	}
}

// scramTLS runs one SCRAM exchange by hand over TLS (or in the clear):
// mechanism and GS2 header as given, c= carrying the GS2 header and
// cbind. It returns the mechanisms offered and "ok" or the error's
// SQLSTATE and message.
func scramTLS(t *testing.T, addr string, useTLS bool, mech, gs2 string, cbind func(serverCert []byte) []byte) (offered []string, outcome string) {
	return scramTLSAs(t, addr, "carol", useTLS, mech, gs2, cbind)
}

// scramTLSAs is scramTLS as user, whose password is "pw".
func scramTLSAs(t *testing.T, addr, user string, useTLS bool, mech, gs2 string, cbind func(serverCert []byte) []byte) (offered []string, outcome string) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	var rw net.Conn = nc
	var serverCert []byte
	if useTLS {
		req, _ := (&pgproto3.SSLRequest{}).Encode(nil)
		if _, err := nc.Write(req); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 1)
		if _, err := nc.Read(b); err != nil || b[0] != 'S' {
			t.Fatalf("SSLRequest: %q %v", b, err)
		}
		tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true})
		if err := tc.Handshake(); err != nil {
			t.Fatal(err)
		}
		serverCert = tc.ConnectionState().PeerCertificates[0].Raw
		rw = tc
	}
	fe := pgproto3.NewFrontend(rw, rw)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": user, "database": "db"}})
	fe.Flush()
	errOutcome := func(msg pgproto3.BackendMessage) string {
		if e, ok := msg.(*pgproto3.ErrorResponse); ok {
			return e.Code + " " + e.Message + " / " + e.Detail
		}
		t.Fatalf("unexpected %#v", msg)
		return ""
	}
	msg, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	sasl, ok := msg.(*pgproto3.AuthenticationSASL)
	if !ok {
		t.Fatalf("want AuthenticationSASL, got %#v", msg)
	}
	offered = sasl.AuthMechanisms
	bare := "n=,r=clientnonce123"
	fe.Send(&pgproto3.SASLInitialResponse{AuthMechanism: mech, Data: []byte(gs2 + bare)})
	fe.Flush()
	if msg, err = fe.Receive(); err != nil {
		t.Fatal(err)
	}
	cont, ok := msg.(*pgproto3.AuthenticationSASLContinue)
	if !ok {
		return offered, errOutcome(msg)
	}
	serverFirst := string(cont.Data)
	attrs := map[string]string{}
	for _, kv := range strings.Split(serverFirst, ",") {
		attrs[kv[:1]] = kv[2:]
	}
	salt, _ := base64.StdEncoding.DecodeString(attrs["s"])
	iter, _ := strconv.Atoi(attrs["i"])
	salted, _ := pbkdf2.Key(sha256.New, "pw", salt, iter, 32)
	clientKey := hmacSum(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	cbindInput := []byte(gs2)
	if cbind != nil {
		cbindInput = append(cbindInput, cbind(serverCert)...)
	}
	withoutProof := "c=" + base64.StdEncoding.EncodeToString(cbindInput) + ",r=" + attrs["r"]
	authMessage := bare + "," + serverFirst + "," + withoutProof
	sig := hmacSum(storedKey[:], authMessage)
	proof := make([]byte, len(sig))
	for i := range sig {
		proof[i] = clientKey[i] ^ sig[i]
	}
	fe.Send(&pgproto3.SASLResponse{Data: []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof))})
	fe.Flush()
	if msg, err = fe.Receive(); err != nil {
		t.Fatal(err)
	}
	final, ok := msg.(*pgproto3.AuthenticationSASLFinal)
	if !ok {
		return offered, errOutcome(msg)
	}
	if want := "v=" + base64.StdEncoding.EncodeToString(hmacSum(hmacSum(salted, "Server Key"), authMessage)); string(final.Data) != want {
		t.Fatalf("server signature %q, want %q", final.Data, want)
	}
	return offered, "ok"
}

// TestSCRAMPlusByHand drives every GS2 flag against what PostgreSQL 15
// answers (read off a real PostgreSQL 15 with ssl=on and scram-sha-256):
// the right certificate hash passes, another one fails the binding check
// (28000), a "y" over TLS is a downgrade (28000), a PLUS exchange without
// binding data or with another binding type is a protocol violation.
func TestSCRAMPlusByHand(t *testing.T) {
	ts, _ := startPasswordTLSServer(t, elliptic.P256(), wire.Config{AuthThrottle: wire.AuthThrottle{Limit: -1}})
	good := func(cert []byte) []byte { h := sha256.Sum256(cert); return h[:] }
	bad := func([]byte) []byte { return make([]byte, sha256.Size) }
	const pe = "tls-server-end-point"
	for _, c := range []struct {
		tls       bool
		mech, gs2 string
		cbind     func([]byte) []byte
		want      string
	}{
		{true, "SCRAM-SHA-256-PLUS", "p=" + pe + ",,", good, "ok"},
		{true, "SCRAM-SHA-256-PLUS", "p=" + pe + ",,", bad, "28000 SCRAM channel binding check failed / "},
		{true, "SCRAM-SHA-256-PLUS", "p=tls-unique,,", good, `08P01 unsupported SCRAM channel-binding type "tls-unique" / `},
		{true, "SCRAM-SHA-256-PLUS", "n,,", nil, "08P01 malformed SCRAM message / The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data."},
		{true, "SCRAM-SHA-256-PLUS", "y,,", nil, "08P01 malformed SCRAM message / The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data."},
		{true, "SCRAM-SHA-256", "y,,", nil, "28000 SCRAM channel binding negotiation error / The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding."},
		{true, "SCRAM-SHA-256", "n,,", nil, "ok"},
		{true, "SCRAM-SHA-256", "p=" + pe + ",,", good, "08P01 malformed SCRAM message / The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data."},
		{true, "SCRAM-SHA-256", "n,,", func([]byte) []byte { return []byte("x") }, "08P01 unexpected SCRAM channel-binding attribute in client-final-message / "},
		{false, "SCRAM-SHA-256-PLUS", "p=" + pe + ",,", good, "08P01 client selected an invalid SASL authentication mechanism / "},
		{false, "SCRAM-SHA-256", "y,,", nil, "ok"},
	} {
		offered, got := scramTLS(t, ts.addr, c.tls, c.mech, c.gs2, c.cbind)
		wantOffered := "SCRAM-SHA-256"
		if c.tls {
			wantOffered = "SCRAM-SHA-256-PLUS,SCRAM-SHA-256"
		}
		if strings.Join(offered, ",") != wantOffered {
			t.Errorf("tls=%v: offered %q, want %q", c.tls, offered, wantOffered)
		}
		if got != c.want {
			t.Errorf("tls=%v %s %q: got %q\nwant %q", c.tls, c.mech, c.gs2, got, c.want)
		}
	}
}

// TestSCRAMPlusFailureIsReported: a failed channel binding is a failed
// login like any other.
func TestSCRAMPlusFailureIsReported(t *testing.T) {
	ts, _ := startPasswordTLSServer(t, elliptic.P256(), wire.Config{})
	scramTLS(t, ts.addr, true, "SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,", func([]byte) []byte { return []byte("other") })
	ev := ts.h.waitAuthFailures(t, 1)
	if e := ev[0]; e.user != "carol" || e.database != "db" || !strings.HasPrefix(e.client, "127.0.0.1:") ||
		e.sqlstate != "28000" || e.message != "SCRAM channel binding check failed" {
		t.Errorf("reported %+v", e)
	}
}
