package pgtest

import (
	"context"
	"testing"
)

func TestStart(t *testing.T) {
	s := Shared(t)
	defer StopShared()
	c := s.Connect(t)
	var v string
	if err := c.QueryRow(context.Background(), "select version()").Scan(&v); err != nil {
		t.Fatal(err)
	}
	t.Log(v)
}
