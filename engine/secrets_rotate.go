package engine

import (
	"fmt"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/state"
)

// RotateSecretKey reseals every secret of a stopped server's data
// directory under a new key (weir rotate-secret-key): both key files are
// read as --secret-key-file is, so both must lie outside dataDir. The
// store is locked while it runs, so a running server makes it fail rather
// than race. It returns how many secrets were resealed.
func RotateSecretKey(dataDir, oldKeyFile, newKeyFile string) (int, error) {
	oldKey, err := ReadSecretKeyFile(oldKeyFile, dataDir)
	if err != nil {
		return 0, err
	}
	newKey, err := ReadSecretKeyFile(newKeyFile, dataDir)
	if err != nil {
		return 0, err
	}
	if oldKey == nil || newKey == nil {
		return 0, fmt.Errorf("both the old and the new key file are needed")
	}
	st, err := state.Open(dataDir, state.Options{Sync: state.SyncGroup})
	if err != nil {
		return 0, err
	}
	defer st.Close()
	cat, err := catalog.Open(st)
	if err != nil {
		return 0, err
	}
	return cat.RekeySecrets(oldKey, newKey)
}
