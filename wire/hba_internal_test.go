package wire

import (
	"net"
	"strings"
	"testing"
)

func TestParseHBAErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"hots all all all trust", `line 1: invalid connection type "hots"`},
		{"# ok\n\nhost all", "line 3: end-of-line before role specification"},
		{"host all all", "line 1: end-of-line before IP address specification"},
		{"host all all 10.0.0.0/8", "line 1: end-of-line before authentication method"},
		{"host all all 10.0.0.0/33 trust", `line 1: invalid IP address "10.0.0.0/33"`},
		{"host all all example.com trust", `line 1: invalid IP address "example.com" (host names are not supported)`},
		{"host all all 10.0.0.1 255.0.255.0 trust", `line 1: invalid IP mask "255.0.255.0"`},
		{"host all all all md5", `line 1: invalid authentication method "md5"`},
		{"host all all all cert", "line 1: cert authentication is only supported on hostssl connections"},
		{"host all all all trust clientcert=verify-full", `line 1: clientcert can only be configured for "hostssl" rows`},
		{"hostssl all all all cert clientcert=verify-ca", `line 1: clientcert only accepts "verify-full" when using "cert" authentication`},
		{"hostssl all all all trust map=x", `line 1: unrecognized authentication option name: "map"`},
		{"local @dbs all trust", "line 1: included files (@dbs) are not supported"},
		{"local all \"unterminated trust", "line 1: unterminated quoted string"},
		{"local all,x all trust\nhost all all all \\\n  oops", `line 2: invalid authentication method "oops"`},
	} {
		_, err := ParseHBA(strings.NewReader(c.text))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.text, err, c.want)
		}
	}
}

func TestHBAMatch(t *testing.T) {
	h, err := ParseHBA(strings.NewReader(`
local   all        all                  trust
hostssl sameuser   all   10.0.0.0/8     cert
host    "all"      +staff 10.0.0.0/8    scram-sha-256
host    samerole   all   10.0.0.0/8     scram-sha-256
host    db1,db2    bob,"+x"  192.168.1.0  255.255.255.0  trust   # a comment
hostnossl all      all   samehost       trust
hostgssenc all     all   all            trust
host    all        all   samenet        scram-sha-256
host    all        all   all            reject
`))
	if err != nil {
		t.Fatal(err)
	}
	member := func(user, role string) bool { return user == role || user == "sam" && role == "staff" }
	hostNets := func() []*net.IPNet {
		_, n, _ := net.ParseCIDR("172.16.5.9/16")
		n.IP = net.ParseIP("172.16.5.9")
		return []*net.IPNet{n}
	}
	for _, c := range []struct {
		cl   hbaClient
		line int // 0: none
	}{
		{hbaClient{local: true, user: "x", database: "y"}, 2},
		{hbaClient{ip: net.ParseIP("10.1.2.3"), ssl: true, user: "ann", database: "ann"}, 3},
		{hbaClient{ip: net.ParseIP("10.1.2.3"), user: "ann", database: "ann"}, 5}, // samerole: ann is (a member of) ann
		{hbaClient{ip: net.ParseIP("10.1.2.3"), user: "ann", database: "bob"}, 10},
		{hbaClient{ip: net.ParseIP("10.1.2.3"), user: "sam", database: "all"}, 4},
		{hbaClient{ip: net.ParseIP("10.1.2.3"), user: "sam", database: "other"}, 10},
		{hbaClient{ip: net.ParseIP("10.1.2.3"), user: "sam", database: "staff"}, 5},
		{hbaClient{ip: net.ParseIP("192.168.1.77"), user: "bob", database: "db2"}, 6},
		{hbaClient{ip: net.ParseIP("192.168.1.77"), user: "+x", database: "db1"}, 6},
		{hbaClient{ip: net.ParseIP("192.168.2.77"), user: "bob", database: "db2"}, 10},
		{hbaClient{ip: net.ParseIP("172.16.5.9"), user: "bob", database: "d"}, 7},
		{hbaClient{ip: net.ParseIP("172.16.5.9"), ssl: true, user: "bob", database: "d"}, 9},
		{hbaClient{ip: net.ParseIP("172.16.200.1"), user: "bob", database: "d"}, 9},
		{hbaClient{ip: net.ParseIP("8.8.8.8"), ssl: true, user: "bob", database: "d"}, 10},
		{hbaClient{ip: net.ParseIP("::1"), user: "bob", database: "d"}, 10},
	} {
		r := h.match(c.cl, member, hostNets)
		got := 0
		if r != nil {
			got = r.line
		}
		if got != c.line {
			t.Errorf("%+v: line %d, want %d", c.cl, got, c.line)
		}
	}
	empty, _ := ParseHBA(strings.NewReader("# nothing\n"))
	if r := empty.match(hbaClient{local: true}, member, hostNets); r != nil {
		t.Errorf("empty rules matched line %d", r.line)
	}
}
