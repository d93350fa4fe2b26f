//go:build !linux

package wire

// watchClient does nothing where poll(POLLRDHUP) is not available: a
// vanished client is then noticed when a write to it fails.
func (c *conn) watchClient() (stop func()) { return func() {} }
