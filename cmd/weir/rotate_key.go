package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/weir-sql/weir/engine"
)

// rotateSecretKey is `weir rotate-secret-key`: it reseals a stopped
// server's secrets under a new key, after which the server is started
// with --secret-key-file NEW.
func rotateSecretKey(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("rotate-secret-key", flag.ContinueOnError)
	data := fs.String("data", "./weir-data", "data directory of a stopped server")
	oldKey := fs.String("secret-key-file", "", "the key file the secrets are sealed with now")
	newKey := fs.String("new-secret-key-file", "", "the key file to reseal them with (e.g. openssl rand -hex 32 > new.key)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n, err := engine.RotateSecretKey(*data, *oldKey, *newKey)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "resealed %d secrets; start weir serve with --secret-key-file %s\n", n, *newKey)
	return nil
}
