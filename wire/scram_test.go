package wire_test

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/wire"
)

func hmacSum(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// scramLogin runs SCRAM-SHA-256 by hand with the given GS2 header, the way
// a client that supports channel binding but sees no TLS ("y,,") does.
func scramLogin(t *testing.T, addr, gs2, password string) string {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "carol"}})
	fe.Flush()
	msg, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if sasl, ok := msg.(*pgproto3.AuthenticationSASL); !ok || strings.Join(sasl.AuthMechanisms, ",") != "SCRAM-SHA-256" {
		t.Fatalf("want AuthenticationSASL, got %#v", msg)
	}
	clientFirstBare := "n=,r=clientnonce123"
	fe.Send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte(gs2 + clientFirstBare)})
	fe.Flush()
	msg, err = fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	cont, ok := msg.(*pgproto3.AuthenticationSASLContinue)
	if !ok {
		if e, ok := msg.(*pgproto3.ErrorResponse); ok {
			return e.Code
		}
		t.Fatalf("want SASLContinue, got %#v", msg)
	}
	serverFirst := string(cont.Data)
	attrs := map[string]string{}
	for _, kv := range strings.Split(serverFirst, ",") {
		attrs[kv[:1]] = kv[2:]
	}
	salt, _ := base64.StdEncoding.DecodeString(attrs["s"])
	iter, _ := strconv.Atoi(attrs["i"])
	if !strings.HasPrefix(attrs["r"], "clientnonce123") || len(attrs["r"]) <= len("clientnonce123") {
		t.Fatalf("server nonce %q", attrs["r"])
	}
	salted, _ := pbkdf2.Key(sha256.New, password, salt, iter, 32)
	clientKey := hmacSum(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	withoutProof := "c=" + base64.StdEncoding.EncodeToString([]byte(gs2)) + ",r=" + attrs["r"]
	authMessage := clientFirstBare + "," + serverFirst + "," + withoutProof
	sig := hmacSum(storedKey[:], authMessage)
	proof := make([]byte, len(sig))
	for i := range sig {
		proof[i] = clientKey[i] ^ sig[i]
	}
	fe.Send(&pgproto3.SASLResponse{Data: []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof))})
	fe.Flush()
	msg, err = fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	switch m := msg.(type) {
	case *pgproto3.ErrorResponse:
		return m.Code
	case *pgproto3.AuthenticationSASLFinal:
		want := "v=" + base64.StdEncoding.EncodeToString(hmacSum(hmacSum(salted, "Server Key"), authMessage))
		if string(m.Data) != want {
			t.Fatalf("server signature %q, want %q", m.Data, want)
		}
	default:
		t.Fatalf("unexpected %#v", msg)
	}
	if msg, err := fe.Receive(); err != nil {
		t.Fatal(err)
	} else if _, ok := msg.(*pgproto3.AuthenticationOk); !ok {
		t.Fatalf("want AuthenticationOk, got %#v", msg)
	}
	return "ok"
}

func TestSCRAMByHand(t *testing.T) {
	h := newTestHandler()
	v, err := wire.SCRAMVerifier("pw")
	if err != nil {
		t.Fatal(err)
	}
	h.roles["carol"] = v
	ts := startServer(t, h, wire.Config{})
	for _, c := range []struct{ gs2, password, want string }{
		{"n,,", "pw", "ok"},
		{"y,,", "pw", "ok"},
		{"y,,", "nope", "28P01"},
		{"p=tls-server-end-point,,", "pw", "08P01"},
		{"x,,", "pw", "08P01"},
	} {
		if got := scramLogin(t, ts.addr, c.gs2, c.password); got != c.want {
			t.Errorf("gs2 %q password %q: got %s, want %s", c.gs2, c.password, got, c.want)
		}
	}
}
