package main

import (
	"crypto/tls"
	"fmt"
	"strings"

	"github.com/weir-sql/weir/wire"
)

// loadAuthRules applies --tls-client-ca to the TLS configuration and
// returns the authentication rules of --hba-file or --tls-client-cert
// require (nil: the built-in default).
func loadAuthRules(tlsConfig *tls.Config, clientCA, clientCert, hbaFile string) (*wire.HBA, error) {
	if clientCA != "" {
		if tlsConfig == nil {
			return nil, fmt.Errorf("--tls-client-ca needs --tls-cert and --tls-key")
		}
		if err := wire.LoadClientCA(tlsConfig, clientCA); err != nil {
			return nil, fmt.Errorf("--tls-client-ca: %w", err)
		}
	}
	var hba *wire.HBA
	switch clientCert {
	case "":
	case "require":
		if hbaFile != "" {
			return nil, fmt.Errorf("--tls-client-cert require and --hba-file do not go together: write cert rules in the file")
		}
		var err error
		if hba, err = wire.ParseHBA(strings.NewReader("hostssl all all all cert\n")); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("--tls-client-cert takes require, not %q", clientCert)
	}
	if hbaFile != "" {
		var err error
		if hba, err = wire.LoadHBA(hbaFile); err != nil {
			return nil, fmt.Errorf("--hba-file %w", err)
		}
	}
	if hba != nil && tlsConfig == nil {
		if hbaFile == "" {
			return nil, fmt.Errorf("--tls-client-cert require needs --tls-cert and --tls-key")
		}
		if line := hba.HostSSLLine(); line > 0 {
			return nil, fmt.Errorf("--hba-file %s: line %d: hostssl record cannot match because SSL is disabled: give --tls-cert and --tls-key", hbaFile, line)
		}
	}
	if hba != nil && hba.NeedsClientCertificates() && clientCA == "" {
		return nil, fmt.Errorf("client certificates can only be checked with a root certificate store: give --tls-client-ca")
	}
	return hba, nil
}
