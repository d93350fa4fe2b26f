package engine

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"strings"
	"testing"
)

// TestOnelineDN: a subject with a multi-valued RDN, a comma, a "#" inside
// a value, UTF-8 and an e-mail address, as PostgreSQL 15 showed it in pg_stat_ssl.client_dn for the same subject (made with
// `openssl req -multivalue-rdn -utf8 -subj "/C=DE/O=Weir\, Inc+OU=Ops/CN=zoë #1/emailAddress=a@b.c"`).
func TestOnelineDN(t *testing.T) {
	oid := func(ids ...int) asn1.ObjectIdentifier { return asn1.ObjectIdentifier(ids) }
	utf8 := func(s string) asn1.RawValue {
		return asn1.RawValue{Tag: asn1.TagUTF8String, Bytes: []byte(s)}
	}
	ia5 := func(s string) asn1.RawValue { return asn1.RawValue{Tag: asn1.TagIA5String, Bytes: []byte(s)} }
	type atv struct {
		Type  asn1.ObjectIdentifier
		Value asn1.RawValue
	}
	name := [][]atv{
		{{oid(2, 5, 4, 6), utf8("DE")}},
		{{oid(2, 5, 4, 11), utf8("Ops")}, {oid(2, 5, 4, 10), utf8("Weir, Inc")}},
		{{oid(2, 5, 4, 3), utf8("zoë #1")}},
		{{oid(1, 2, 840, 113549, 1, 9, 1), ia5("a@b.c")}},
	}
	var seq []asn1.RawValue
	for _, rdn := range name {
		var set []byte
		for _, a := range rdn {
			b, err := asn1.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			set = append(set, b...)
		}
		seq = append(seq, asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true, Bytes: set})
	}
	der, err := asn1.Marshal(seq)
	if err != nil {
		t.Fatal(err)
	}
	var check pkix.RDNSequence
	if _, err := asn1.Unmarshal(der, &check); err != nil {
		t.Fatal(err)
	}
	if got, want := onelineDN(der), `/C=DE/OU=Ops/O=Weir\, Inc/CN=zoë #1/emailAddress=a@b.c`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, c := range []struct{ in, want string }{{" lead", `\ lead`}, {"#x", `\#x`}, {"trail ", `trail\ `}, {"a\x01b", `a\01b`}, {`q"<>;+\`, `q\"\<\>\;\+\\`}} {
		d, _ := asn1.Marshal([]asn1.RawValue{{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true, Bytes: mustMarshal(t, atv{oid(2, 5, 4, 3), utf8(c.in)})}})
		if got := onelineDN(d); got != "/CN="+c.want {
			t.Errorf("%q: got %s, want /CN=%s", c.in, got, c.want)
		}
	}
	long := strings.Repeat("é", 40) // 80 bytes
	if got := truncateName(long); len(got) != 62 || !strings.HasPrefix(long, got) {
		t.Errorf("truncated to %d bytes", len(got))
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := asn1.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
