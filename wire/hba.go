package wire

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
)

// HBA is a client authentication file in pg_hba.conf's own syntax, the
// subset weir needs: one rule a line,
//
//	TYPE  DATABASE  USER  [ADDRESS [MASK]]  METHOD  [clientcert=verify-ca|verify-full]
//
// TYPE is local (not TCP: an in-process connection), host, hostssl,
// hostnossl, hostgssenc (never matches: weir has no GSS encryption) or
// hostnogssenc; DATABASE is all, sameuser, samerole, replication (never
// matches: weir has no replication connections) or names; USER is all,
// names or +role (members of role); lists are comma-separated, a quoted
// name is never a keyword. ADDRESS is a CIDR, an address with a MASK
// column, all, samehost (one of this machine's addresses) or samenet (a
// network this machine is on). METHOD is trust, scram-sha-256, cert (a
// client certificate whose CN is the user name) or reject. '#' starts a
// comment, a '\' at the end of a line continues it. The first rule
// matching a connection decides; none matching refuses it (28000).
type HBA struct {
	rules []hbaRule
}

type hbaConnType int

const (
	hbaLocal hbaConnType = iota
	hbaHost
	hbaHostSSL
	hbaHostNoSSL
	hbaHostGSSEnc
	hbaHostNoGSSEnc
)

var hbaConnTypes = map[string]hbaConnType{
	"local": hbaLocal, "host": hbaHost, "hostssl": hbaHostSSL, "hostnossl": hbaHostNoSSL,
	"hostgssenc": hbaHostGSSEnc, "hostnogssenc": hbaHostNoGSSEnc,
}

// hbaToken is one name of a DATABASE or USER list; quoted names are
// never keywords ("all" is a role called all).
type hbaToken struct {
	s      string
	quoted bool
}

func (t hbaToken) is(keyword string) bool { return !t.quoted && t.s == keyword }

type hbaAddrKind int

const (
	hbaAddrAll hbaAddrKind = iota
	hbaAddrSameHost
	hbaAddrSameNet
	hbaAddrNet
)

// Authentication methods.
const (
	hbaTrust  = "trust"
	hbaSCRAM  = "scram-sha-256"
	hbaCert   = "cert"
	hbaReject = "reject"
)

type hbaRule struct {
	line      int
	text      string // the line as written, for logs
	conn      hbaConnType
	databases []hbaToken
	users     []hbaToken
	addrKind  hbaAddrKind
	addr      *net.IPNet // hbaAddrNet
	method    string
	// clientCert is "", "verify-ca" (a valid client certificate is
	// needed) or "verify-full" (and its CN must be the user name); cert
	// implies verify-full.
	clientCert string
}

// LoadHBA reads and parses an HBA file. An error names the file and the
// line, so a bad --hba-file fails the start with something to act on.
func LoadHBA(file string) (*HBA, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := ParseHBA(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return h, nil
}

// ParseHBA parses rules from r; errors say "line N: …" in PostgreSQL's
// words.
func ParseHBA(r io.Reader) (*HBA, error) {
	h := &HBA{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	lineNo, start := 0, 0
	var pending string
	for sc.Scan() {
		lineNo++
		text := sc.Text()
		if pending == "" {
			start = lineNo
		}
		if strings.HasSuffix(text, `\`) && !strings.Contains(text, "#") {
			pending += strings.TrimSuffix(text, `\`) + " "
			continue
		}
		text = pending + text
		pending = ""
		rule, ok, err := parseHBALine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s", start, err)
		}
		if ok {
			rule.line = start
			h.rules = append(h.rules, rule)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if pending != "" {
		if rule, ok, err := parseHBALine(pending); err != nil {
			return nil, fmt.Errorf("line %d: %s", start, err)
		} else if ok {
			rule.line = start
			h.rules = append(h.rules, rule)
		}
	}
	return h, nil
}

// NeedsClientCertificates reports whether some rule checks client
// certificates (cert, clientcert=): the server must then have a CA to
// verify them with.
func (h *HBA) NeedsClientCertificates() bool {
	for _, r := range h.rules {
		if r.method == hbaCert || r.clientCert != "" {
			return true
		}
	}
	return false
}

// HostSSLLine returns the line of the first hostssl rule, 0 if none: on a
// server without TLS such a rule can never match, which PostgreSQL
// refuses at load.
func (h *HBA) HostSSLLine() int {
	for _, r := range h.rules {
		if r.conn == hbaHostSSL {
			return r.line
		}
	}
	return 0
}

// hbaFields splits a line into its whitespace-separated fields, each a
// comma-separated list of tokens, quotes kept as a flag.
func hbaFields(line string) ([][]hbaToken, error) {
	var fields [][]hbaToken
	var field []hbaToken
	var tok strings.Builder
	inTok, quoted, inQuote := false, false, false
	endTok := func() {
		if inTok {
			field = append(field, hbaToken{s: tok.String(), quoted: quoted})
		}
		tok.Reset()
		inTok, quoted = false, false
	}
	endField := func() {
		endTok()
		if field != nil {
			fields = append(fields, field)
		}
		field = nil
	}
	afterComma := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case inQuote:
			if ch == '"' {
				inQuote = false
			} else {
				tok.WriteByte(ch)
			}
		case ch == '#':
			i = len(line)
		case ch == '"':
			inQuote, quoted, inTok, afterComma = true, true, true, false
		case ch == ',':
			endTok()
			afterComma = true
		case ch == ' ' || ch == '\t' || ch == '\r':
			if afterComma {
				continue
			}
			endField()
		default:
			tok.WriteByte(ch)
			inTok, afterComma = true, false
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unterminated quoted string")
	}
	endField()
	return fields, nil
}

func parseHBALine(line string) (hbaRule, bool, error) {
	fields, err := hbaFields(line)
	if err != nil || len(fields) == 0 {
		return hbaRule{}, false, err
	}
	r := hbaRule{text: strings.TrimSpace(line)}
	single := func(f []hbaToken, what string) (hbaToken, error) {
		if len(f) != 1 {
			return hbaToken{}, fmt.Errorf("multiple values specified for %s", what)
		}
		return f[0], nil
	}
	t, err := single(fields[0], "connection type")
	if err != nil {
		return r, false, err
	}
	ct, ok := hbaConnTypes[t.s]
	if !ok || t.quoted {
		return r, false, fmt.Errorf("invalid connection type %q", t.s)
	}
	r.conn = ct
	if len(fields) < 2 {
		return r, false, fmt.Errorf("end-of-line before database specification")
	}
	r.databases = fields[1]
	if len(fields) < 3 {
		return r, false, fmt.Errorf("end-of-line before role specification")
	}
	r.users = fields[2]
	for _, list := range [][]hbaToken{r.databases, r.users} {
		for _, tk := range list {
			if strings.HasPrefix(tk.s, "@") && !tk.quoted {
				return r, false, fmt.Errorf("included files (%s) are not supported", tk.s)
			}
		}
	}
	rest := fields[3:]
	if ct != hbaLocal {
		if len(rest) == 0 {
			return r, false, fmt.Errorf("end-of-line before IP address specification")
		}
		a, err := single(rest[0], "IP address")
		if err != nil {
			return r, false, err
		}
		rest = rest[1:]
		switch {
		case a.is("all"):
			r.addrKind = hbaAddrAll
		case a.is("samehost"):
			r.addrKind = hbaAddrSameHost
		case a.is("samenet"):
			r.addrKind = hbaAddrSameNet
		case strings.Contains(a.s, "/"):
			_, n, err := net.ParseCIDR(a.s)
			if err != nil {
				return r, false, fmt.Errorf("invalid IP address %q: %v", a.s, err)
			}
			r.addrKind, r.addr = hbaAddrNet, n
		default:
			ip := net.ParseIP(a.s)
			if ip == nil {
				return r, false, fmt.Errorf("invalid IP address %q (host names are not supported)", a.s)
			}
			if len(rest) == 0 {
				return r, false, fmt.Errorf("end-of-line before netmask specification")
			}
			m, err := single(rest[0], "netmask")
			if err != nil {
				return r, false, err
			}
			rest = rest[1:]
			mip := net.ParseIP(m.s)
			if mip == nil || (ip.To4() == nil) != (mip.To4() == nil) {
				return r, false, fmt.Errorf("invalid IP mask %q", m.s)
			}
			mask := net.IPMask(mip.To16())
			if ip.To4() != nil {
				mask = net.IPMask(mip.To4())
				ip = ip.To4()
			}
			if ones, bits := mask.Size(); ones == 0 && bits == 0 && !mip.IsUnspecified() {
				return r, false, fmt.Errorf("invalid IP mask %q", m.s)
			}
			r.addrKind, r.addr = hbaAddrNet, &net.IPNet{IP: ip.Mask(mask), Mask: mask}
		}
	}
	if len(rest) == 0 {
		return r, false, fmt.Errorf("end-of-line before authentication method")
	}
	m, err := single(rest[0], "authentication method")
	if err != nil {
		return r, false, err
	}
	switch m.s {
	case hbaTrust, hbaSCRAM, hbaCert, hbaReject:
		r.method = m.s
	default:
		return r, false, fmt.Errorf("invalid authentication method %q", m.s)
	}
	if r.method == hbaCert && ct != hbaHostSSL {
		return r, false, fmt.Errorf("cert authentication is only supported on hostssl connections")
	}
	for _, opt := range rest[1:] {
		for _, o := range opt {
			name, val, ok := strings.Cut(o.s, "=")
			if !ok {
				return r, false, fmt.Errorf("authentication option not in name=value format: %s", o.s)
			}
			if name != "clientcert" {
				return r, false, fmt.Errorf("unrecognized authentication option name: %q", name)
			}
			if ct != hbaHostSSL {
				return r, false, fmt.Errorf("clientcert can only be configured for \"hostssl\" rows")
			}
			switch val {
			case "verify-full":
				r.clientCert = val
			case "verify-ca":
				if r.method == hbaCert {
					return r, false, fmt.Errorf("clientcert only accepts \"verify-full\" when using \"cert\" authentication")
				}
				r.clientCert = val
			default:
				return r, false, fmt.Errorf("invalid value for clientcert: %q", val)
			}
		}
	}
	if r.method == hbaCert {
		r.clientCert = "verify-full"
	}
	return r, true, nil
}
