package engine

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReadSecretKeyFile reads weir serve --secret-key-file: 32 raw bytes, or
// 64 hex digits (a trailing newline allowed). It refuses a file inside
// dataDir: the key is kept apart from the data so that a copy of the data
// directory (a backup, a disk) does not carry the key that opens its
// secrets. "" is no key.
func ReadSecretKeyFile(path, dataDir string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	absKey, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(absKey); err == nil {
		absKey = real
	}
	absData, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(absData); err == nil {
		absData = real
	}
	if rel, err := filepath.Rel(absData, absKey); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("--secret-key-file %s is inside the data directory %s: keep the key apart from the data it protects", path, dataDir)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) == 32 {
		return b, nil
	}
	if t := strings.TrimSpace(string(b)); len(t) == 64 {
		if k, err := hex.DecodeString(t); err == nil {
			return k, nil
		}
	}
	return nil, fmt.Errorf("--secret-key-file %s must hold 32 random bytes or 64 hex digits (e.g. openssl rand -hex 32 > %s)", path, path)
}
