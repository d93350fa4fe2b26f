package main

import (
	"time"

	"github.com/weir-sql/weir/internal/pgtest"
)

// pgServer is a throwaway PostgreSQL 15 cluster with fsync ON, so that it
// commits as durably as weir does.
type pgServer struct{ *pgtest.Server }

func startPG(string) (*pgServer, error) {
	s, err := pgtest.StartWith(pgtest.Options{Durable: true})
	if err != nil {
		return nil, err
	}
	if err := waitReady(s.URL(), 30*time.Second); err != nil {
		s.Stop()
		return nil, err
	}
	return &pgServer{s}, nil
}

func (s *pgServer) stop()       { s.Stop() }
func (s *pgServer) url() string { return s.URL() }
