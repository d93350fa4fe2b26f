package catalog

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"sort"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Secret is a CREATE SECRET: a connector credential kept encrypted at
// rest under c/secret/<name>. Only the sealed value is stored (AES-256-GCM,
// a fresh random nonce per value, the name as additional data so that a
// value cannot be moved to another name); the key lives outside the data
// directory (weir serve --secret-key-file), so a copy of the data
// directory alone does not give the values away.
type Secret struct {
	Name    string
	Owner   uint32
	Created time.Time
	Nonce   []byte
	Sealed  []byte
	// ACL is who may use the secret (GRANT USAGE ON SECRET); nil is the
	// default: its owner only.
	ACL ACL `json:",omitempty"`
}

const prefixSecret = state.PrefixCatalog + "secret/"

func secretKey(name string) []byte { return []byte(prefixSecret + name) }

// secretAEAD is AES-256-GCM of key (32 bytes).
func secretAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, sqlerr.New(sqlerr.InternalError, "secret key is %d bytes, want 32", len(key))
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// CreateSecret seals value with key and stores it as secret name. With
// ifNotExists, an existing secret is left alone with a NOTICE error.
func (c *Catalog) CreateSecret(name string, owner uint32, key []byte, value string, ifNotExists bool) error {
	aead, err := secretAEAD(key)
	if err != nil {
		return err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	if owner == 0 {
		owner = BootstrapRoleOID
	}
	s := &Secret{Name: name, Owner: owner, Created: time.Now().UTC(), Nonce: nonce,
		Sealed: aead.Seal(nil, nonce, []byte(value), []byte(name))}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.secrets == nil {
		c.secrets = map[string]*Secret{}
	}
	if _, ok := c.secrets[name]; ok {
		if ifNotExists {
			return notice(sqlerr.DuplicateObject, "secret \"%s\" already exists, skipping", name)
		}
		return sqlerr.New(sqlerr.DuplicateObject, "secret \"%s\" already exists", name)
	}
	return c.commit(func(tx *state.Txn) error { return putJSON(tx, secretKey(name), s) },
		func() { c.secrets[name] = s })
}

// SecretValue opens secret name's value with key. Unknown: 42704; a
// wrong key (the server started with another key file): 28000.
func (c *Catalog) SecretValue(name string, key []byte) (string, error) {
	c.mu.RLock()
	s, ok := c.secrets[name]
	c.mu.RUnlock()
	if !ok {
		return "", sqlerr.New(sqlerr.UndefinedObject, "secret \"%s\" does not exist", name)
	}
	aead, err := secretAEAD(key)
	if err != nil {
		return "", err
	}
	v, err := aead.Open(nil, s.Nonce, s.Sealed, []byte(name))
	if err != nil {
		return "", sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "secret \"%s\" cannot be opened with this server's secret key", name).
			WithHint("Start weir serve with the --secret-key-file the secret was created under.")
	}
	return string(v), nil
}

// LookupSecret returns secret name (its sealed value only).
func (c *Catalog) LookupSecret(name string) (*Secret, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.secrets[name]
	return s, ok
}

// DropSecret drops secret name.
func (c *Catalog) DropSecret(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.secrets[name]; !ok {
		return sqlerr.New(sqlerr.UndefinedObject, "secret \"%s\" does not exist", name)
	}
	return c.commit(func(tx *state.Txn) error { return tx.Delete(secretKey(name)) },
		func() { delete(c.secrets, name) })
}

// Secrets returns every secret ordered by name.
func (c *Catalog) Secrets() []*Secret {
	c.mu.RLock()
	out := make([]*Secret, 0, len(c.secrets))
	for _, s := range c.secrets {
		out = append(out, s)
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// loadSecrets reads the stored secrets (at Open).
func (c *Catalog) loadSecrets(tx *state.Txn) error {
	c.secrets = map[string]*Secret{}
	return tx.IteratePrefix([]byte(prefixSecret), func(_, v []byte) error {
		var s Secret
		if err := unmarshal(v, &s); err != nil {
			return err
		}
		c.secrets[s.Name] = &s
		return nil
	})
}
