// Command kafkadev runs franz-go's in-process Kafka cluster (pkg/kfake,
// the fake broker franz-go's own tests use) on a local port, for trying
// weir's Kafka connector where no real broker is installed
// (docs/kafka.md). It speaks the Kafka protocol, transactions included,
// and keeps everything in memory: it is for trying and testing, not for
// data anyone needs.
//
//	go run ./cmd/kafkadev -listen 9092 -topics orders:3,totals_out:1
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	port := flag.Int("listen", 9092, "the TCP port to listen on (127.0.0.1)")
	topics := flag.String("topics", "", "topics to create, name:partitions, comma-separated (orders:3,totals_out:1)")
	flag.Parse()
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(*port), kfake.AllowAutoTopicCreation()}
	for _, t := range strings.Split(*topics, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		name, parts := t, int32(1)
		if n, p, ok := strings.Cut(t, ":"); ok {
			v, err := strconv.Atoi(p)
			if err != nil || v <= 0 {
				log.Fatalf("kafkadev: bad topic %q: use name:partitions", t)
			}
			name, parts = n, int32(v)
		}
		opts = append(opts, kfake.SeedTopics(parts, name))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		log.Fatalf("kafkadev: %v", err)
	}
	defer c.Close()
	fmt.Printf("kafkadev: a fake Kafka cluster listening on %s (in memory; Ctrl-C stops it)\n", strings.Join(c.ListenAddrs(), ","))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
