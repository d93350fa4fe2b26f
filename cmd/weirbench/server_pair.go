package main

import (
	"os"
)

// serverPair is a freshly built weir and a PostgreSQL 15, each in its own
// directory under one temporary directory: the two sides of a benchmark
// that reports weir next to PostgreSQL measured in the same run.
type serverPair struct {
	tmp  string
	weir *weirProc
	pg   *pgServer
}

// startServerPair builds weir from root and starts both servers; stop
// ends them and removes the temporary directory.
func startServerPair(root, prefix string) (*serverPair, error) {
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	os.Chmod(tmp, 0o755)
	p := &serverPair{tmp: tmp}
	logf("building weir")
	bin, err := buildWeir(root, tmp)
	if err != nil {
		p.stop()
		return nil, err
	}
	if p.weir, err = startWeir(bin, tmp); err != nil {
		p.stop()
		return nil, err
	}
	if p.pg, err = startPG(tmp); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// targets are the two servers to connect to, weir first.
func (p *serverPair) targets() [2]*target {
	return [2]*target{{name: "weir", url: p.weir.url()}, {name: "postgres", url: p.pg.url()}}
}

func (p *serverPair) stop() {
	if p.pg != nil {
		p.pg.stop()
	}
	if p.weir != nil {
		p.weir.stop()
	}
	os.RemoveAll(p.tmp)
}
