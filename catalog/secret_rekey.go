package catalog

import (
	"crypto/rand"

	"github.com/weir-sql/weir/state"
)

// RekeySecrets reseals every secret under newKey, all in one catalog
// transaction: after it the store opens with newKey only. A secret that
// oldKey cannot open fails the whole change (55000, as SecretValue says)
// and nothing is rewritten, so a wrong old key never loses a secret. It
// returns how many secrets were resealed.
func (c *Catalog) RekeySecrets(oldKey, newKey []byte) (int, error) {
	newAEAD, err := secretAEAD(newKey)
	if err != nil {
		return 0, err
	}
	resealed := map[string]*Secret{}
	for _, s := range c.Secrets() {
		v, err := c.SecretValue(s.Name, oldKey)
		if err != nil {
			return 0, err
		}
		nonce := make([]byte, newAEAD.NonceSize())
		if _, err := rand.Read(nonce); err != nil {
			return 0, err
		}
		n := *s
		n.Nonce, n.Sealed = nonce, newAEAD.Seal(nil, nonce, []byte(v), []byte(s.Name))
		resealed[s.Name] = &n
	}
	if len(resealed) == 0 {
		return 0, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	err = c.commit(func(tx *state.Txn) error {
		for name, s := range resealed {
			if err := putJSON(tx, secretKey(name), s); err != nil {
				return err
			}
		}
		return nil
	}, func() {
		for name, s := range resealed {
			c.secrets[name] = s
		}
	})
	if err != nil {
		return 0, err
	}
	return len(resealed), nil
}
