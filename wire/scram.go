package wire

import (
	"bytes"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it: the server keeps
// only StoredKey and ServerKey, never the password. Over TLS the exchange
// may bind to the channel (SCRAM-SHA-256-PLUS, scram_plus.go).

const (
	scramMechanism  = "SCRAM-SHA-256"
	scramIterations = 4096
	scramSaltLen    = 16
	scramNonceLen   = 18
)

// SCRAMVerifier derives the verifier PostgreSQL stores in pg_authid for a
// password: SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey>, base64. The
// password is used as given (PostgreSQL applies SASLprep first, which
// changes only non-ASCII passwords).
func SCRAMVerifier(password string) (string, error) {
	salt := make([]byte, scramSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return "", err
	}
	clientKey := hmacSHA256(salted, []byte("Client Key"))
	storedKey := sha256.Sum256(clientKey)
	serverKey := hmacSHA256(salted, []byte("Server Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("%s$%d:%s$%s:%s", scramMechanism, scramIterations, b64(salt), b64(storedKey[:]), b64(serverKey)), nil
}

// scramSecret is a parsed verifier.
type scramSecret struct {
	iterations int
	salt       string // base64, as sent to the client
	storedKey  []byte
	serverKey  []byte
}

func parseSCRAMVerifier(v string) (scramSecret, bool) {
	var s scramSecret
	mech, rest, ok := strings.Cut(v, "$")
	if !ok || mech != scramMechanism {
		return s, false
	}
	iterSalt, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return s, false
	}
	iter, salt, ok := strings.Cut(iterSalt, ":")
	if !ok {
		return s, false
	}
	stored, server, ok := strings.Cut(keys, ":")
	if !ok {
		return s, false
	}
	n, err := strconv.Atoi(iter)
	if err != nil || n <= 0 {
		return s, false
	}
	if _, err := base64.StdEncoding.DecodeString(salt); err != nil {
		return s, false
	}
	s.iterations, s.salt = n, salt
	s.storedKey, err = base64.StdEncoding.DecodeString(stored)
	if err != nil || len(s.storedKey) != sha256.Size {
		return s, false
	}
	s.serverKey, err = base64.StdEncoding.DecodeString(server)
	if err != nil || len(s.serverKey) != sha256.Size {
		return s, false
	}
	return s, true
}

// IsSCRAMVerifier reports whether v has the form of a SCRAM-SHA-256
// verifier as pg_authid keeps it (PostgreSQL's parse_scram_secret): such a
// PASSWORD value is stored as it is rather than hashed again.
func IsSCRAMVerifier(v string) bool {
	_, ok := parseSCRAMVerifier(v)
	return ok
}

func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

func scramMalformed(detail string) *sqlerr.Error {
	return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.ProtocolViolation, Message: "malformed SCRAM message", Detail: detail}
}

// mockVerifier is the verifier of the doomed exchange for a role that
// cannot log in with a password: its salt is derived from the role name
// and a per-server key, so that asking twice gives the same salt, as for a
// real role.
func (s *Server) mockVerifier(user string) string {
	salt := hmacSHA256(s.mockKey[:], []byte(user))[:scramSaltLen]
	zero := make([]byte, sha256.Size)
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("%s$%d:%s$%s:%s", scramMechanism, scramIterations, b64(salt), b64(zero), b64(zero))
}

// authenticateSCRAM runs the SASL exchange; nil means the client proved it
// knows the password. doomed runs the exchange to its end but fails it
// whatever the client sends. Over TLS SCRAM-SHA-256-PLUS is offered too
// (scram_plus.go). A returned error is sent as FATAL.
func (c *conn) authenticateSCRAM(user, verifier string, doomed bool) *sqlerr.Error {
	failed := &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidPassword,
		Message: fmt.Sprintf("password authentication failed for user %q", user)}
	secret, ok := parseSCRAMVerifier(verifier)
	if !ok {
		c.srv.log.Warn("wire: invalid SCRAM verifier", "user", user)
		return failed
	}

	mechanisms := c.scramMechanisms()
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: mechanisms})
	c.flush()
	if err := c.be.SetAuthType(pgproto3.AuthTypeSASL); err != nil {
		return sqlerr.From(err)
	}
	msg, err := c.be.Receive()
	if err != nil {
		return authReadFailed(err)
	}
	first, ok := msg.(*pgproto3.SASLInitialResponse)
	if !ok {
		return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.ProtocolViolation, Message: fmt.Sprintf("expected SASL response, got %T", msg)}
	}
	offered := len(mechanisms) > 1
	plus := offered && first.AuthMechanism == scramPlusMechanism
	if !plus && first.AuthMechanism != scramMechanism {
		return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.ProtocolViolation, Message: "client selected an invalid SASL authentication mechanism"}
	}
	gs2, clientFirstBare, clientNonce, perr := parseClientFirst(first.Data, plus, offered)
	if perr != nil {
		return perr
	}
	// What client-final-message's c= must carry: the GS2 header, and with
	// channel binding the hash of the certificate this server sent.
	cbindInput := []byte(gs2)
	if plus {
		cbindInput = append(cbindInput, c.srv.cbind...)
	}

	serverNonceRaw := make([]byte, scramNonceLen)
	if _, err := rand.Read(serverNonceRaw); err != nil {
		return sqlerr.From(err)
	}
	nonce := clientNonce + base64.StdEncoding.EncodeToString(serverNonceRaw)
	serverFirst := fmt.Sprintf("r=%s,s=%s,i=%d", nonce, secret.salt, secret.iterations)

	if err := c.be.SetAuthType(pgproto3.AuthTypeSASLContinue); err != nil {
		return sqlerr.From(err)
	}
	c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})
	c.flush()
	msg, err = c.be.Receive()
	if err != nil {
		return authReadFailed(err)
	}
	final, ok := msg.(*pgproto3.SASLResponse)
	if !ok {
		return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.ProtocolViolation, Message: fmt.Sprintf("expected SASL response, got %T", msg)}
	}

	withoutProof, proof, perr := parseClientFinal(final.Data, cbindInput, plus, nonce)
	if perr != nil {
		return perr
	}
	authMessage := []byte(clientFirstBare + "," + serverFirst + "," + withoutProof)
	clientSignature := hmacSHA256(secret.storedKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	for i := range clientKey {
		clientKey[i] = proof[i] ^ clientSignature[i]
	}
	stored := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(stored[:], secret.storedKey) != 1 || doomed {
		return failed
	}
	serverSignature := hmacSHA256(secret.serverKey, authMessage)
	if err := c.be.SetAuthType(pgproto3.AuthTypeSASLFinal); err != nil {
		return sqlerr.From(err)
	}
	c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte("v=" + base64.StdEncoding.EncodeToString(serverSignature))})
	return nil
}

// errAuthHungUp is the client closing the connection in the middle of the
// exchange: psql does so when the server asks for a password it was not
// given, to prompt for one and come back. It is not a failed login.
var errAuthHungUp = &sqlerr.Error{Severity: "FATAL", Code: sqlerr.ConnectionFailure, Message: "client closed the connection during authentication"}

// authReadFailed turns a read failure during authentication into the FATAL to
// attempt sending (a vanished client will not read it).
func authReadFailed(err error) *sqlerr.Error {
	if isDisconnect(err) {
		return errAuthHungUp
	}
	return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.ProtocolViolation, Message: "invalid authentication message: " + err.Error()}
}

// parseClientFirst splits client-first-message into its GS2 header and the
// bare message and extracts the client nonce. plus is whether the client
// chose SCRAM-SHA-256-PLUS, offered whether the server offered it. The
// GS2 flag must agree with the choice: 'p=tls-server-end-point' with PLUS,
// 'n' or 'y' without; a 'y' (the client could bind but believes the
// server cannot) when the server did offer PLUS means someone in between
// removed it from the list, and is refused as PostgreSQL does. The user
// name in the message is ignored, as PostgreSQL does: the startup
// packet's user is authoritative.
func parseClientFirst(data []byte, plus, offered bool) (gs2, bare, nonce string, err *sqlerr.Error) {
	s := string(data)
	if s == "" {
		return "", "", "", scramMalformed("Unexpected channel-binding flag \"\".")
	}
	flag, rest, _ := strings.Cut(s, ",")
	switch {
	case flag == "n" || flag == "y":
		if plus {
			return "", "", "", scramMalformed("The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data.")
		}
		if flag == "y" && offered {
			return "", "", "", &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization,
				Message: "SCRAM channel binding negotiation error",
				Detail:  "The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding."}
		}
	case strings.HasPrefix(flag, "p="):
		if !plus {
			return "", "", "", scramMalformed("The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.")
		}
		if name := flag[2:]; name != cbindType {
			return "", "", "", &sqlerr.Error{Severity: "FATAL", Code: sqlerr.ProtocolViolation,
				Message: fmt.Sprintf("unsupported SCRAM channel-binding type %q", sanitizeSCRAM(name))}
		}
	default:
		return "", "", "", scramMalformed(fmt.Sprintf("Unexpected channel-binding flag \"'%s'\".", sanitizeSCRAM(s[:1])))
	}
	if !strings.HasPrefix(rest, ",") {
		if strings.HasPrefix(rest, "a=") {
			return "", "", "", &sqlerr.Error{Severity: "FATAL", Code: sqlerr.FeatureNotSupported, Message: "client uses authorization identity, but it is not supported"}
		}
		return "", "", "", scramMalformed("Unexpected attribute in client-first-message.")
	}
	gs2, bare = flag+",,", rest[1:]
	for _, attr := range strings.Split(bare, ",") {
		if v, ok := strings.CutPrefix(attr, "r="); ok {
			nonce = v
		}
	}
	if nonce == "" || !strings.HasPrefix(bare, "n=") {
		return "", "", "", scramMalformed("Could not parse client-first-message.")
	}
	for i := 0; i < len(nonce); i++ {
		if nonce[i] < 0x21 || nonce[i] > 0x7e {
			return "", "", "", scramMalformed("Invalid nonce.")
		}
	}
	return gs2, bare, nonce, nil
}

// sanitizeSCRAM makes client text safe to quote in a message: anything but
// printable ASCII becomes '?', as PostgreSQL's sanitize_str does.
func sanitizeSCRAM(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if ch < 0x20 || ch > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}

// parseClientFinal checks the channel-binding echo and nonce of
// client-final-message and returns the part the signature covers and the
// decoded proof. cbindInput is what c= must decode to. With channel
// binding a mismatch means the client saw another certificate (28000, as
// PostgreSQL); without it, only the GS2 header is echoed and anything else
// is a protocol violation.
func parseClientFinal(data []byte, cbindInput []byte, plus bool, nonce string) (withoutProof string, proof []byte, err *sqlerr.Error) {
	s := string(data)
	i := strings.LastIndex(s, ",p=")
	if i < 0 {
		return "", nil, scramMalformed("Could not find proof in client-final-message.")
	}
	withoutProof = s[:i]
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "c=") || !strings.HasPrefix(attrs[1], "r=") {
		return "", nil, scramMalformed("Could not parse client-final-message.")
	}
	cb, derr := base64.StdEncoding.DecodeString(attrs[0][2:])
	if derr != nil || !bytes.Equal(cb, cbindInput) {
		if plus {
			return "", nil, &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization, Message: "SCRAM channel binding check failed"}
		}
		return "", nil, &sqlerr.Error{Severity: "FATAL", Code: sqlerr.ProtocolViolation,
			Message: "unexpected SCRAM channel-binding attribute in client-final-message"}
	}
	if attrs[1][2:] != nonce {
		return "", nil, &sqlerr.Error{Severity: "FATAL", Code: sqlerr.ProtocolViolation, Message: "invalid SCRAM response", Detail: "Nonce does not match."}
	}
	proof, derr = base64.StdEncoding.DecodeString(s[i+3:])
	if derr != nil || len(proof) != sha256.Size {
		return "", nil, scramMalformed("Malformed proof in client-final-message.")
	}
	return withoutProof, proof, nil
}
